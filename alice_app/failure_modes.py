"""Automatic failure-mode labels: *why* a wrong answer is wrong, from the task's own metadata.

Families fill ``Task.metadata`` with ``distractors`` (numbers the task says to ignore), the
``expression`` (or ``operator`` + ``operands``), ``candidates`` (the options a negation chooses
between), ``negated`` and ``alternatives`` (answers a confused reader would give). A wrong
answer is matched against them, most specific explanation first:

hedged (the answer line offered several values) → format (no answer, or a computation left undone:
"Answer: 3 + 4") → distractor_echo → negation_flip
(another candidate) → operator_confusion (one operator swapped, parentheses dropped, or strictly
left to right) → alternatives (negation_flip when the task is negated, else operator_confusion) →
off_by_one → other.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterator, Mapping

from . import arithmetic
from .numbers import canonical, to_fraction
from .types import HEDGED, Task, Verdict

_SYMBOLS = {"+": "+", "plus": "+", "add": "+", "-": "-", "−": "-", "minus": "-", "sub": "-",
            "*": "×", "×": "×", "x": "×", "times": "×", "mul": "×", "/": "÷", "÷": "÷", "div": "÷"}
_MAX_OPERANDS = 8


@dataclass(frozen=True)
class Diagnosis:
    mode: str  # one of FAILURE_MODES
    detail: str = ""  # the wrong computation the answer matches, e.g. "7 - 3 = 4"


def label_failure(task: Task, verdict: Verdict) -> str:
    """The failure mode of a wrong verdict (one of FAILURE_MODES); "other" for a correct one."""
    if verdict.is_correct:
        return "other"
    if (verdict.details.get("tier1") or {}).get("method") == HEDGED:
        return HEDGED
    return diagnose(task, verdict.extracted).mode


def diagnose(task: Task, extracted: str | None) -> Diagnosis:
    """Explain the wrong answer ``extracted`` to ``task`` (see the module docstring for the order)."""
    if extracted is None:
        return Diagnosis("format")
    value = to_fraction(str(extracted))
    if value is None:
        return Diagnosis("other")
    meta = task.metadata or {}
    if value in _values(meta.get("distractors")):
        return Diagnosis("distractor_echo")
    if value in _candidate_values(meta, task.answer):
        return Diagnosis("negation_flip")
    asked = asked_expression(task)
    for variant, result in arithmetic.mistakes(asked) if asked else ():
        if result == value:
            return Diagnosis("operator_confusion", f"{variant} = {canonical(result)}")
    if value in _values(meta.get("alternatives")):
        return Diagnosis("negation_flip" if meta.get("negated") else "operator_confusion")
    expected = to_fraction(task.answer)
    if expected is not None and abs(value - expected) == 1:
        return Diagnosis("off_by_one")
    return Diagnosis("other")


def asked_expression(task: Task) -> str:
    """The computation the task asks for ("7 + 3", "(87 + 11) × 70"), or "" when it has none."""
    meta = task.metadata or {}
    for candidate in (meta.get("expression"), meta.get("operator")):
        if isinstance(candidate, str) and arithmetic.value(candidate) is not None:
            return candidate
    operator, operands = str(meta.get("operator", "")), _operands(meta)
    if not operands:
        return ""
    if "{" in operator:
        return _fill(operator, operands)
    symbol = _SYMBOLS.get(operator.strip().lower())
    return f" {symbol} ".join(canonical(x) for x in operands) if symbol and len(operands) > 1 else ""


def _fill(template: str, operands: list[Fraction]) -> str:
    names = "abcdefgh"[: len(operands)]
    try:
        filled = template.format(**{name: canonical(x) for name, x in zip(names, operands)})
    except (KeyError, IndexError, ValueError):
        return ""
    return filled if arithmetic.value(filled) is not None else ""


def _operands(meta: Mapping[str, Any]) -> list[Fraction]:
    raw = meta.get("operands")
    if not isinstance(raw, (list, tuple)) or len(raw) > _MAX_OPERANDS:
        return []
    values = [to_fraction(str(x)) for x in raw]
    return [] if None in values else values


def _candidate_values(meta: Mapping[str, Any], answer: str) -> set[Fraction]:
    # Options a (double) negation chooses between; answering another one flipped the negation.
    expected = to_fraction(answer)
    return {v for v in _evaluated(meta.get("candidates")) if v != expected}


def _evaluated(items: Any) -> Iterator[Fraction]:
    for item in items if isinstance(items, (list, tuple)) else ():
        result = arithmetic.value(str(item))
        if result is not None:
            yield result


def _values(items: Any) -> set[Fraction]:
    if not isinstance(items, (list, tuple, set, frozenset)):
        items = [] if items is None else [items]
    values = (to_fraction(str(item)) for item in items)
    return {value for value in values if value is not None}
