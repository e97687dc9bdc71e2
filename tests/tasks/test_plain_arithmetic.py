from alice_app.tasks import generate_task, get_family


def test_same_sums_as_negation_arithmetic_without_the_not_clause():
    for level in ("easy", "medium", "hard"):
        for seed in range(50):
            plain = generate_task("plain_arithmetic", level, seed)
            negated = generate_task("negation_arithmetic", level, seed)
            assert plain.answer == negated.answer
            assert plain.metadata["operands"] == negated.metadata["operands"]
            assert " not " not in plain.prompt.lower() and plain.metadata["distractors"] == []
            assert plain.metadata["negated"] is False


def test_is_a_control_not_a_core_family():
    assert get_family("plain_arithmetic").core is False


def test_accepts_template_and_operands():
    task = generate_task("plain_arithmetic", "medium", 0, template="mul", operands=(6, 7))
    assert task.prompt.startswith("What is 6 × 7?") and task.answer == "42"
