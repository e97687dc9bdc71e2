"""The reward of one turn: a pure function whose components are all visible.

A correct answer earns at least ``1 + 0 + 0`` = 1.0 while a wrong one earns at most the format
bonus (0.1), so correctness always dominates, whatever the wording or the turn.
"""
from __future__ import annotations

from typing import Sequence

from .types import TURN_KINDS, Reward, Verdict
from .verify.extract import locate_answer, marker_text
from .verify.tier1 import answers_equal

CORRECT = 1.0
SPEED_BONUS = 0.5  # for solving at turn 1, falling linearly to 0 at the last turn
FORMAT_BONUS = 0.1
REPETITION_PENALTY = -0.2
TURNS = len(TURN_KINDS)
EXPLICIT_METHODS = frozenset({"plain", "marker", "boxed"})

REWARD_FORMULA = (
    "total = correctness + speed + format + repetition, where "
    f"correctness = {CORRECT:g} if the verdict is correct else 0; "
    f"speed = {SPEED_BONUS:g} × ({TURNS} − turn) / {TURNS - 1} if correct else 0 (turn = 1..{TURNS}); "
    f"format = {FORMAT_BONUS:g} if the response states its answer explicitly (an 'Answer:' line, "
    "a \\boxed{} or nothing but the answer) else 0; "
    f"repetition = {REPETITION_PENALTY:g} if the answer is wrong and repeats an earlier answer "
    "of the same episode else 0"
)


def compute_reward(
    verdict: Verdict, turn_index: int, response: str, previous_answers: Sequence[str | None]
) -> Reward:
    """The reward of ``verdict`` at turn ``turn_index`` (1-based) given the episode's earlier answers."""
    if not 1 <= turn_index <= TURNS:
        raise ValueError(f"turn_index must be between 1 and {TURNS}, not {turn_index}")
    correct = bool(verdict.is_correct)
    components = {
        "correctness": CORRECT if correct else 0.0,
        "speed": SPEED_BONUS * (TURNS - turn_index) / (TURNS - 1) if correct else 0.0,
        "format": FORMAT_BONUS if _explicit(response, verdict) else 0.0,
        "repetition": _repetition(verdict, correct, previous_answers),
    }
    return Reward(total=round(sum(components.values()), 6), components=components)


def _explicit(response: str, verdict: Verdict) -> bool:
    # The requested format, not a number guessed from prose: what the system prompt asks for.
    # An 'Answer:' line from which the verifier read an answer counts too: a text answer ("Answer: CAT,DOG").
    if locate_answer(response)[1] in EXPLICIT_METHODS:
        return True
    return verdict.extracted is not None and bool(marker_text(response))


def _repetition(verdict: Verdict, correct: bool, previous_answers: Sequence[str | None]) -> float:
    # Repeating an answer already given (and so already judged) ignores the feedback in between.
    answer = verdict.extracted
    if correct or answer is None:
        return 0.0
    repeated = any(answers_equal(answer, earlier) for earlier in previous_answers if earlier is not None)
    return REPETITION_PENALTY if repeated else 0.0
