from alice_app.tasks import generate_task
from alice_app.tasks._arith import evaluate


def test_negation_parity_decides_the_answer():
    for level in ("easy", "medium", "hard"):
        for seed in range(100):
            task = generate_task("double_negation", level, seed)
            named = evaluate(task.metadata["named"])
            values = [evaluate(c) for c in task.metadata["candidates"]]
            expected = named if task.metadata["negation_depth"] % 2 == 0 else next(v for v in values if v != named)
            assert int(task.answer) == expected


def test_wording_counts_the_negations():
    task = generate_task("double_negation", "hard", 0, template="quadruple", negation_form="not_true")
    assert task.prompt.count("not true that") == 3 and "the answer is not" in task.prompt
    assert task.metadata["negation_depth"] == 4


def test_the_issue_example_shape():
    task = generate_task("double_negation", "easy", 1, template="numbers")
    assert "It is not true that the answer is not" in task.prompt
