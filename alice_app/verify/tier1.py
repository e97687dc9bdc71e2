"""Tier 1: programmatic verification: extract the final answer (``extract.py``) and compare it
exactly, or let a family's own scorer judge; say "undecided" when neither can.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

from ..types import Task
from . import latex
from .extract import HEDGED, SEGMENT, UNEVALUATED, WINDOW, extract_answer, locate_answer, marker_text, text_answer
from ..numbers import normalise, to_fraction

__all__ = ["Tier1Result", "answers_equal", "check", "extract_answer", "family_scorer", "locate_answer"]

Scorer = Callable[[Task, str], float]


@dataclass(frozen=True)
class Tier1Result:
    decided: bool
    is_correct: bool
    extracted: str | None
    reason: str
    method: str = ""  # how the answer was found: plain, marker, boxed, latex, last_number, scorer
    score: float | None = None  # a family scorer's raw score, when one was used


def answers_equal(a: str, b: str) -> bool:
    """Exact equality of two answers: 7 == 7.0 == 14/2 == "seven"; text compares case-blind."""
    if a is None or b is None:
        return False
    a, b = str(a).strip(), str(b).strip()
    if a == b:
        return bool(a)
    left, right = to_fraction(a), to_fraction(b)
    if left is not None and right is not None:
        return left == right
    return _text_key(a) == _text_key(b) and bool(_text_key(a))


def _text_key(text: str) -> str:
    return re.sub(r"[\s.!]+$", "", text.casefold())


def check(task: Task, response: str, scorer: Scorer | None = None) -> Tier1Result:
    """Judge ``response`` against ``task.answer``; ``decided`` is False when tier 1 cannot tell.

    A family with its own scorer (reasoning-gym adapters) is scored by it; ``scorer`` defaults
    to the one registered for ``task.family``.
    """
    scorer = scorer or family_scorer(task.family)
    if scorer is not None:
        return _check_with_scorer(task, response, scorer)
    answer, method = locate_answer(response)
    expected = normalise(task.answer)
    if expected is None:
        return _check_text(task, response, answer, method)
    if method == UNEVALUATED:  # "Answer: 3 + 4" restates the question: no reward for copying it
        return Tier1Result(True, False, None, "the answer line is a computation, not its value", method)
    if answer is None:
        if method == HEDGED:  # "Answer: 7 or 8": decided wrong, whichever value is right
            return Tier1Result(True, False, None, "the answer line offers more than one value", method)
        return Tier1Result(False, False, None, "no answer found in the response", method)
    if answer == expected:
        return Tier1Result(True, True, answer, f"{answer} equals the expected answer", method)
    value = to_fraction(answer)
    if value is None:
        return _check_expression(task, answer, method)
    correct = value == to_fraction(expected)
    if not correct and method == "last_number":
        # Free prose with no answer line: its last number is only a guess at the answer, so a
        # mismatch is left to the oracle ("the square root of one hundred" is not 100).
        return Tier1Result(False, False, answer, f"no answer line; the last number, {answer}, differs", method)
    verb = "equals" if correct else "differs from"
    return Tier1Result(True, correct, answer, f"{answer} {verb} the expected answer", method)


def _check_expression(task: Task, answer: str, method: str) -> Tier1Result:
    # A non-numeric form ("\sqrt{4}", "3 + 4"): math-verify may prove it equal; otherwise only an
    # oracle can say whether it is an equivalent form, so tier 1 leaves it undecided.
    proved, why = latex.equivalent(task.answer, answer)
    if proved:
        return Tier1Result(True, True, answer, f"{answer} is an equivalent form (math-verify)", method)
    return Tier1Result(False, False, answer, f"{answer!r} is {why}" if why == "not a plain number"
                       else f"{answer!r}: {why}", method)


def _check_text(task: Task, response: str, answer: str | None, method: str) -> Tier1Result:
    # A non-numeric expected answer: accept an exact (case-blind) match, leave the rest undecided.
    candidates = [c for c in (marker_text(response), (response or "")[:SEGMENT], answer) if c]
    if any(answers_equal(candidate, task.answer) for candidate in candidates):
        return Tier1Result(True, True, answer, "matches the expected text answer", "text")
    return Tier1Result(False, False, answer, "expected a text answer; no exact match", method)


def _check_with_scorer(task: Task, response: str, scorer: Scorer) -> Tier1Result:
    if task.wants_text_answer:  # "CAT,DOG" is an answer, not "no number"
        answer, method = text_answer(response), "text"
    else:
        answer, method = locate_answer(response)
    text = response[-WINDOW:] if isinstance(response, str) else ""
    # The scorer may expect the bare answer (reasoning-gym's score_answer does): try both.
    candidates = dict.fromkeys(c for c in (text.strip(), marker_text(text), answer) if c)
    best, errors = 0.0, []
    for candidate in candidates:
        try:
            best = max(best, float(scorer(task, candidate)))
        except Exception as exc:  # a third-party scorer must not break verification
            errors.append(f"{type(exc).__name__}: {exc}"[:200])
    if errors and best == 0.0:
        return Tier1Result(False, False, answer, f"the family scorer failed ({errors[0]})", "scorer")
    correct = best >= 1.0
    return Tier1Result(True, correct, answer, f"family scorer gave {best:.2f}", "scorer", best)


def family_scorer(family: str) -> Scorer | None:
    """The scorer registered for ``family`` (reasoning-gym adapters), else None."""
    get_family = _registry()
    if get_family is None:
        return None
    try:
        return get_family(family).scorer
    except (ValueError, KeyError):
        return None


@lru_cache(maxsize=1)  # the import statement itself costs more than a whole plain-number check
def _registry() -> Callable[[str], Any] | None:
    try:
        from ..tasks.registry import get_family
    except ImportError:  # the task registry is optional for verifying hand-built tasks
        return None
    return get_family
