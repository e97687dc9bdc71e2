import pytest

from alice_app.failure_modes import asked_expression, diagnose, label_failure
from alice_app.tasks import family_names, generate_task
from alice_app.types import FAILURE_MODES, LEVELS, Task, Verdict


def _task(answer="10", **metadata) -> Task:
    meta = {"operands": [7, 3], "operator": "+", "distractors": [14], "negated": True, "alternatives": []}
    meta.update(metadata)
    return Task(id="t/easy/1", family="t", level="easy", prompt="If the result is NOT 14, what is 7 + 3?",
                answer=answer, hint="", seed=1, metadata=meta)


def _wrong(extracted):
    return Verdict(is_correct=False, confidence=1.0, feedback="", tier=1, extracted=extracted)


@pytest.mark.parametrize("extracted, mode", [
    (None, "format"), ("14", "distractor_echo"), ("4", "operator_confusion"), ("21", "operator_confusion"),
    ("11", "off_by_one"), ("9", "off_by_one"), ("50", "other"), ("sqrt(2)", "other"),
])
def test_label_failure(extracted, mode):
    assert label_failure(_task(), _wrong(extracted)) == mode


def test_a_correct_verdict_is_not_a_failure():
    assert label_failure(_task(), Verdict(True, 1.0, "", 1, "10")) == "other"


def test_a_hedged_answer_is_its_own_failure_mode_not_a_format_failure():
    from alice_app.verify import VerifierStack

    verifier = VerifierStack()
    task = generate_task("negation_arithmetic", "easy", 3)
    hedge = verifier.verify(task, f"Answer: {task.answer} or {int(task.answer) + 1}")
    assert label_failure(task, hedge) == "hedged" and "hedged" in FAILURE_MODES
    assert label_failure(task, verifier.verify(task, "I cannot tell.")) == "format"


def test_alternatives_of_a_negated_task_are_negation_flips():
    task = _task(answer="17", operator="compare", operands=[17, 23], distractors=[], alternatives=[23])
    assert diagnose(task, "23").mode == "negation_flip"


def test_another_candidate_is_a_negation_flip():
    task = _task(answer="10", operator="8 + 2", operands=[8, 2], distractors=[], candidates=["8 + 2", "8 × 2"])
    assert diagnose(task, "16").mode == "negation_flip"


def test_operator_confusion_names_the_wrong_computation():
    diagnosis = diagnose(_task(), "4")
    assert diagnosis.detail == "7 - 3 = 4"


def test_templates_and_expressions_are_understood():
    task = _task(answer="6860", operator="({a} + {b}) × {c}", operands=[87, 11, 70], distractors=[])
    assert asked_expression(task) == "(87 + 11) × 70"
    assert diagnose(task, "857").detail == "87 + 11 × 70 = 857"  # parentheses dropped


def test_odd_metadata_never_breaks_labelling():
    task = _task(operator="{z}", operands="not a list", distractors="14", alternatives=None, expression=7)
    assert diagnose(task, "14").mode == "distractor_echo"
    assert diagnose(task, "3").mode == "other"


def test_real_families_label_their_own_traps():
    for family in family_names():
        for level in LEVELS:
            task = generate_task(family, level, 11)
            for distractor in task.metadata.get("distractors", []):
                assert diagnose(task, str(distractor)).mode == "distractor_echo"
            for alternative in task.metadata.get("alternatives", []):
                assert diagnose(task, str(alternative)).mode in FAILURE_MODES[:3]
