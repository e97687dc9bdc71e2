"""Property tests: the verifier never raises and never accepts a wrong number; every generated
task's own answer verifies as correct."""
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alice_app.tasks import family_names, generate_task
from alice_app.types import LEVELS
from alice_app.verify import VerifierStack
from alice_app.verify.tier1 import extract_answer

STACK = VerifierStack()
CONTROL = "".join(chr(c) for c in (*range(0, 32), 127, *range(128, 160)))
NASTY = st.text(alphabet=st.sampled_from(CONTROL + string.printable + "−×÷∞√½²$\\{}^*_"), max_size=400)


@pytest.mark.timeout(120)  # unbounded work on a short input (a LaTeX bomb) must fail, not hang
@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(max_size=2000), NASTY))
def test_verifier_never_raises_on_arbitrary_text(make_task, text):
    verdict = STACK.verify(make_task(), text)
    assert verdict.tier in (1, 2, 3) and 0.0 <= verdict.confidence <= 1.0 and verdict.feedback
    extract_answer(text)


@pytest.mark.timeout(120)
@settings(max_examples=10, deadline=None)
@given(filler=st.sampled_from(["x", "\x00", "7 ", "\\boxed{", "Answer: ", "(", "9^", CONTROL, "$9!", "\\Gamma(9^{9})"]))
def test_verifier_handles_one_megabyte_replies(make_task, filler):
    text = (filler * (1_000_000 // len(filler) + 1))[:1_000_000]
    verdict = STACK.verify(make_task(), text)
    assert isinstance(verdict.is_correct, bool)


@settings(max_examples=200, deadline=None)
@given(answer=st.integers(-10**9, 10**9), wrong=st.integers(-10**9, 10**9),
       wording=st.sampled_from(["{}", "Answer: {}", "The answer is {}.", "**{}**", "\\boxed{{{}}}",
                                "I think so.\nAnswer: {}\nDone.", "{}.0"]))
def test_wrong_numbers_are_rejected_and_right_ones_accepted(make_task, answer, wrong, wording):
    task = make_task(answer=str(answer))
    assert STACK.verify(task, wording.format(answer)).is_correct
    if wrong != answer:
        verdict = STACK.verify(task, wording.format(wrong))
        assert not verdict.is_correct and verdict.tier == 1


@settings(max_examples=60, deadline=None)
@given(family=st.sampled_from(family_names()), level=st.sampled_from(LEVELS), seed=st.integers(0, 2**31 - 1))
def test_every_task_verifies_its_own_answer(family, level, seed):
    task = generate_task(family, level, seed)
    for response in (task.answer, f"Answer: {task.answer}", f"Let me think.\nAnswer: {task.answer}"):
        verdict = STACK.verify(task, response)
        assert verdict.is_correct, (task.id, response, verdict)
    wrong = STACK.verify(task, f"Answer: {task.answer}1")
    assert not wrong.is_correct


def test_every_family_and_level_verifies_its_own_answers_over_many_seeds():
    for family in family_names():
        for level in LEVELS:
            for seed in range(25):
                task = generate_task(family, level, seed)
                assert STACK.verify(task, f"Answer: {task.answer}").is_correct, task.id
                assert not STACK.verify(task, f"Answer: {task.answer}1").is_correct, task.id
