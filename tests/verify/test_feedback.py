import re

from alice_app.tasks import generate_task
from alice_app.verify.feedback import FORMAT_HELP, write_feedback


def test_distractor_echo_is_named(task):
    assert write_feedback(task, False, "14") == "You answered 14, which is the number the task told you to ignore."


def test_wrong_operator_is_shown(task):
    assert write_feedback(task, False, "4") == "You answered 7 - 3 = 4 but the task asks for 7 + 3."


def test_no_answer_explains_the_format(task):
    assert write_feedback(task, False, None) == FORMAT_HELP


def test_correct(task):
    assert write_feedback(task, True, "10").startswith("Correct")


def test_negation_flip_on_a_real_comparison_task():
    task = generate_task("negated_comparison", "easy", 3)
    larger = str(max(task.metadata["operands"]))
    assert "negation" in write_feedback(task, False, larger)


def _numbers(text: str) -> set[str]:
    return set(re.findall(r"(?<![\w.])-?\d+(?![\w])", text))


def test_feedback_never_reveals_the_answer():
    # Feedback may quote the prompt's numbers and the wrong answer, never anything new.
    for family in ("negation_arithmetic", "false_claim", "exclusion_counting", "distractor_order_of_ops"):
        for seed in range(20):
            task = generate_task(family, "medium", seed)
            for wrong in [*task.metadata.get("alternatives", []), int(task.answer) + 1, int(task.answer) + 7, None]:
                text = write_feedback(task, False, None if wrong is None else str(wrong))
                allowed = _numbers(task.prompt) | {str(wrong)}
                assert _numbers(text) <= allowed, (task.id, text)
                if task.answer not in allowed:
                    assert task.answer not in _numbers(text)
