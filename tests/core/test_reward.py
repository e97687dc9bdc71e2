import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alice_app.reward import REWARD_FORMULA, compute_reward
from alice_app.types import Verdict


def _verdict(correct: bool, extracted: str | None = "7") -> Verdict:
    return Verdict(is_correct=correct, confidence=1.0, feedback="", tier=1, extracted=extracted)


def test_components_are_visible_and_sum_to_the_total():
    reward = compute_reward(_verdict(True), 1, "Answer: 7", [])
    assert reward.components == {"correctness": 1.0, "speed": 0.5, "format": 0.1, "repetition": 0.0}
    assert reward.total == 1.6


def test_solving_later_earns_less():
    totals = [compute_reward(_verdict(True), turn, "7", []).total for turn in range(1, 6)]
    assert totals == sorted(totals, reverse=True) and totals[-1] == 1.1


def test_repeating_a_rejected_answer_is_penalised():
    reward = compute_reward(_verdict(False, "14"), 2, "Answer: 14", ["14.0"])
    assert reward.components["repetition"] == -0.2 and reward.total == pytest.approx(-0.1)


def test_no_answer_earns_no_format_bonus():
    assert compute_reward(_verdict(False, None), 1, "hmm", []).total == 0.0


def test_turn_must_be_in_range():
    with pytest.raises(ValueError, match="between 1 and 5"):
        compute_reward(_verdict(True), 6, "7", [])


def test_formula_names_every_component():
    for name in ("correctness", "speed", "format", "repetition"):
        assert name in REWARD_FORMULA


answers = st.one_of(st.none(), st.text(max_size=8), st.integers(-50, 50).map(str))


@settings(deadline=None)  # the first reply with LaTeX imports sympy (about a second)
@given(right_turn=st.integers(1, 5), wrong_turn=st.integers(1, 5), right_answer=answers, wrong_answer=answers,
       right_text=st.text(max_size=200), wrong_text=st.text(max_size=200),
       right_history=st.lists(answers, max_size=4), wrong_history=st.lists(answers, max_size=4))
def test_a_correct_answer_always_beats_a_wrong_one(right_turn, wrong_turn, right_answer, wrong_answer,
                                                   right_text, wrong_text, right_history, wrong_history):
    right = compute_reward(_verdict(True, right_answer), right_turn, right_text, right_history)
    wrong = compute_reward(_verdict(False, wrong_answer), wrong_turn, wrong_text, wrong_history)
    assert right.total > wrong.total


@pytest.mark.parametrize("response, bonus", [
    ("Answer: 7", 0.1), ("7", 0.1), ("\\boxed{7}", 0.1), ("I think it is 3 and then 7", 0.0), ("", 0.0),
])
def test_format_rewards_the_requested_answer_form(response, bonus):
    assert compute_reward(_verdict(False, "9"), 1, response, []).components["format"] == bonus


def test_the_readme_documents_the_exact_formula():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    assert REWARD_FORMULA in (root / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("hedge", ["Answer: 7 or 8", "Answer: 6, 7, 8", "Answer: 7 ± 1", "Answer: 7. Maybe 8."])
def test_a_hedge_that_contains_the_right_answer_earns_nothing(hedge):
    from alice_app.tasks import generate_task
    from alice_app.verify.stack import VerifierStack

    task = generate_task("plain_arithmetic", "easy", 1)
    hedge = hedge.replace("7", "{a}").replace("6", "{b}").replace("8", "{c}").format(
        a=task.answer, b=int(task.answer) - 1, c=int(task.answer) + 1)
    verdict = VerifierStack().verify(task, hedge)
    assert not verdict.is_correct and compute_reward(verdict, 1, hedge, []).total == 0.0


def test_the_question_copied_onto_the_answer_line_earns_nothing():
    from alice_app.failure_modes import label_failure
    from alice_app.tasks import generate_task
    from alice_app.verify.feedback import UNEVALUATED_HELP
    from alice_app.verify.stack import VerifierStack

    task = generate_task("negation_arithmetic", "easy", 3)  # "If the result is NOT 10, what is 1 + 8?"
    reply = f"Answer: {task.metadata['expression']}"
    verdict = VerifierStack().verify(task, reply)
    assert not verdict.is_correct and compute_reward(verdict, 1, reply, []).total == 0.0
    assert verdict.feedback == UNEVALUATED_HELP and label_failure(task, verdict) == "format"
