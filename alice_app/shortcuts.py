"""Shortcut metrics: does a wrong answer come from the prompt, or contradict the reply's own sum?

Pure functions over (prompt, reply, extracted answer), used by ``evaluation``, the learning bench
and the training reward:

* ``echoes_prompt_number``: a wrong final answer that is some other number written in the prompt
  (a distractor, an operand, a claimed result): the model copied instead of computing.
* ``contradicts_own_result``: the reply computes something ("6 + 6 = 12") and then states a final
  answer that differs from its last computed result ("The answer is 6").
* ``computes_with``: the reply writes a computation whose numbers are exactly the question's own
  operands ("3 + 7 = …" for "Someone says 12. Add 3 and 7."), not a distractor ("12 + 7 = 19").
"""
from __future__ import annotations

import re
from fractions import Fraction

_NUMBER_RE = re.compile(r"(?<![\d.])-?\d+(?:\.\d+)?(?!\.?\d)")  # "12." ends a sentence
# "<number or bracket> <operator> ... = <number>": a computation the reply carried out. A rewrite whose right
# side still holds an operation ("1 + 8 × 5 = 1 + 40") is a step towards a result, not a result.
_OPERATOR = r"(?:[-+×*x÷/·]|\\times)"
_COMPUTED_RE = re.compile(rf"[\d)]\s*{_OPERATOR}\s*[\d(][^=\n]{{0,60}}?=\s*(-?\d+(?:\.\d+)?)"
                          rf"(?!\d|\.\d|\s*{_OPERATOR}\s*[\d(])")
# The left side of such a computation: numbers (in brackets or not) joined by operators, then "=".
_OPERAND = r"\(*\s*\d+(?:\.\d+)?\s*\)*"
_LEFT_SIDE_RE = re.compile(rf"{_OPERAND}(?:\s*{_OPERATOR}\s*{_OPERAND})+(?=\s*=)")


def _same(a: str, b: str) -> bool:
    try:
        return Fraction(a) == Fraction(b)
    except (ValueError, ZeroDivisionError):
        return a.strip() == b.strip()


def prompt_numbers(prompt: str) -> list[str]:
    """Every number written in digits in ``prompt``, in order, without repeats."""
    return list(dict.fromkeys(_NUMBER_RE.findall(prompt)))


def echoes_prompt_number(prompt: str, extracted: str | None, answer: str) -> bool:
    """True when a wrong ``extracted`` answer is another number that appears in the prompt."""
    if extracted is None or _same(extracted, answer):
        return False
    return any(_same(extracted, number) for number in prompt_numbers(prompt))


def last_computed(reply: str) -> str | None:
    """The result of the last "a op b = c" the reply wrote, or None when it computed nothing."""
    found = _COMPUTED_RE.findall(reply or "")
    return found[-1] if found else None


def contradicts_own_result(reply: str, extracted: str | None) -> bool:
    """True when the final answer differs from the reply's own last computed result."""
    computed = last_computed(reply)
    return extracted is not None and computed is not None and not _same(extracted, computed)


def computed_operands(reply: str) -> list[list[str]]:
    """The numbers of the left side of every "a op b … = c" the reply wrote, in order."""
    return [_NUMBER_RE.findall(side.replace("-", " - ")) for side in _LEFT_SIDE_RE.findall(reply or "")]


def computes_with(reply: str, operands) -> bool:
    """True when some computation of the reply uses exactly ``operands`` (as a multiset, in any order),
    whatever its result: the question's own numbers, not a distractor or a claimed value."""
    wanted = sorted(Fraction(str(n)) for n in operands)
    return any(sorted(Fraction(n) for n in numbers) == wanted for numbers in computed_operands(reply))
