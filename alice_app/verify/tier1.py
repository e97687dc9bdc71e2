"""Tier 1: programmatic verification: find the final answer in a response and compare it exactly.

Extraction tries, in order: the whole reply is one number (the fast path); the value after the
*last* "answer" marker ("Answer: 7", "The answer is **seven**"); the last ``\\boxed{}``; LaTeX
through math-verify; and finally the last number in the reply. Only a bounded window of the reply
is read, so a 1 MB string costs the same as a short one.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

from ..types import Task
from . import latex
from .numbers import NUMBER_RE, NUMBER_WORDS_RE, canonical, normalise, plain_number, to_fraction

WINDOW = 4000  # characters read from each end of a reply
SEGMENT = 200  # characters read after an answer marker

_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_MARKUP_RE = re.compile(r"(?<!\d)\*\*|\*\*(?!\d)|__|`")  # bold, not Python's 2**3
_MARKER_RE = re.compile(
    r"\banswer\b(?:\s+(?:is|was|would\s+be|should\s+be|equals))?\s*[:=]?\s*", re.IGNORECASE
)
_NEGATED_RE = re.compile(r"(?:not|isn't|is\s+not)\b", re.IGNORECASE)
_CLAUSE_END_RE = re.compile(r"\n|[.;!?](?:\s|$)|,\s|\s(?:because|since|so|as)\b", re.IGNORECASE)
_OPERATOR_NEXT_RE = re.compile(r"\s*(?:\*\*|[-+*/×÷·^−]|\\times|\\cdot|\\div)\s*[\d({\\]")
_EXPRESSION_RE = re.compile(r"(?:[\d\s(){}.+\-*/×÷·^−]|\\times|\\cdot|\\div)+")
_ASCII_OPERATORS = (("×", "*"), ("÷", "/"), ("·", "*"), ("−", "-"), ("\\times", "*"), ("\\cdot", "*"), ("\\div", "/"))
_LEAD_CHARS = " \t\n*_$(\"'"
_PROSE_WORDS = {"one", "zero"}  # too common in prose to count as an answer on their own

Scorer = Callable[[Task, str], float]


@dataclass(frozen=True)
class Tier1Result:
    decided: bool
    is_correct: bool
    extracted: str | None
    reason: str
    method: str = ""  # how the answer was found: plain, marker, boxed, latex, last_number, scorer
    score: float | None = None  # a family scorer's raw score, when one was used


def extract_answer(text: str) -> str | None:
    """The final answer in ``text``, normalised ("7", "-3", "3/4", "0.5"), or None."""
    return locate_answer(text)[0]


def locate_answer(text: Any) -> tuple[str | None, str]:
    """(answer, method); the method says how sure the extraction is ("last_number" is a guess)."""
    if not isinstance(text, str) or not text:
        return None, "none"
    fast = plain_number(text)
    if fast is not None:
        return fast, "plain"
    found = _locate_in(_clean(text[-WINDOW:]))
    if found[0] is None and len(text) > WINDOW:  # an answer stated early in a very long reply
        head = _locate_explicit(_clean(text[:WINDOW]))
        found = head if head[0] is not None else found
    return found


def _clean(text: str) -> str:
    return _MARKUP_RE.sub("", _CONTROL_RE.sub(" ", text))


def _locate_in(text: str) -> tuple[str | None, str]:
    found = _locate_explicit(text)
    if found[0] is not None:
        return found
    if "\\" in text or "$" in text:
        value = _latex_answer(text)
        if value is not None:
            return value, "latex"
    value = _last_number(text)
    return value, ("last_number" if value is not None else "none")


def _locate_explicit(text: str) -> tuple[str | None, str]:
    plain = plain_number(text)
    if plain is not None:
        return plain, "plain"
    whole = text.strip(" \t\n.!") if len(text) <= SEGMENT else ""
    if whole and NUMBER_WORDS_RE.fullmatch(whole):
        return normalise(whole), "plain"
    for finder, method in ((_after_markers, "marker"), (_boxed, "boxed")):
        value = finder(text)
        if value is not None:
            return value, method
    return None, "none"


def _after_markers(text: str) -> str | None:
    for match in reversed(list(_MARKER_RE.finditer(text))):  # the last "Answer:" wins
        value = _leading_answer(text[match.end() : match.end() + SEGMENT])
        if value is not None:
            return value
    return None


def _leading_answer(segment: str) -> str | None:
    clause = _CLAUSE_END_RE.split(segment.lstrip(_LEAD_CHARS.replace("(", "")), maxsplit=1)[0]
    if _NEGATED_RE.match(clause):  # "the answer is not 14, ..." names what the answer is not
        return None
    if "=" in clause:  # "Answer: 3 + 4 = 7": the value is what the working ends in
        clause = clause.rpartition("=")[2].lstrip(_LEAD_CHARS)
    match = NUMBER_RE.match(clause)
    if clause.startswith("(") or (match and _OPERATOR_NEXT_RE.match(clause, match.end())):
        return _arithmetic(clause)
    if match:
        return normalise(match.group(0))
    match = NUMBER_WORDS_RE.match(clause)
    if match:
        return normalise(match.group(0))
    if clause.startswith("\\"):
        return _latex_answer("$" + clause.strip(" .$") + "$")
    return None


def _arithmetic(clause: str) -> str | None:
    # "7 - 3" as the stated answer: evaluate it exactly (small expressions only).
    expression = _EXPRESSION_RE.match(clause).group(0)
    for old, new in _ASCII_OPERATORS:
        expression = expression.replace(old, new)
    expression = expression.strip()
    return _latex_answer(f"${expression}$" if "{" in expression else expression)


def _boxed(text: str) -> str | None:
    start = text.rfind("\\boxed{")
    if start < 0:
        return None
    content = _braced(text, start + len("\\boxed{"))
    if content is None:
        return None
    return plain_number(content) or _words(content) or _latex_answer(f"$\\boxed{{{content}}}$")


def _braced(text: str, start: int) -> str | None:
    depth = 1
    for index in range(start, min(len(text), start + SEGMENT)):
        depth += {"{": 1, "}": -1}.get(text[index], 0)
        if depth == 0:
            return text[start:index]
    return None


def _words(text: str) -> str | None:
    text = text.strip(" .")
    return normalise(text) if NUMBER_WORDS_RE.fullmatch(text) else None


def _latex_answer(snippet: str) -> str | None:
    for expr in latex.parse_latex(snippet):
        value = latex.small_value(expr)
        return canonical(value, str(expr)) if value is not None else _expression_text(expr)
    return None


def _expression_text(expr: Any) -> str | None:
    text = str(expr)
    return text if len(text) <= SEGMENT else None


def _last_number(text: str) -> str | None:
    candidates = [(m.end(), m.group(0)) for m in NUMBER_RE.finditer(text)]
    candidates += [
        (m.end(), m.group(0))
        for m in NUMBER_WORDS_RE.finditer(text)
        if m.group(0).lower() not in _PROSE_WORDS
    ]
    for _, numeral in sorted(candidates, reverse=True):
        value = normalise(numeral)
        if value is not None:
            return value
    return None


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
    if answer is None:
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
    for expr in latex.parse_latex(f"${answer}$"):
        if latex.equivalent(task.answer, expr):
            return Tier1Result(True, True, answer, f"{answer} is an equivalent form (math-verify)", method)
    return Tier1Result(False, False, answer, f"{answer!r} is not a plain number", method)


def _check_text(task: Task, response: str, answer: str | None, method: str) -> Tier1Result:
    # A non-numeric expected answer: accept an exact (case-blind) match, leave the rest undecided.
    candidates = [c for c in (_marker_text(response), (response or "")[:SEGMENT], answer) if c]
    if any(answers_equal(candidate, task.answer) for candidate in candidates):
        return Tier1Result(True, True, answer, "matches the expected text answer", "text")
    return Tier1Result(False, False, answer, "expected a text answer; no exact match", method)


def _marker_text(response: Any) -> str | None:
    if not isinstance(response, str):
        return None
    text = _clean(response[-WINDOW:])
    matches = list(_MARKER_RE.finditer(text))
    if not matches:
        return None
    return text[matches[-1].end() :].split("\n", 1)[0][:SEGMENT].strip(_LEAD_CHARS + ".")


def _check_with_scorer(task: Task, response: str, scorer: Scorer) -> Tier1Result:
    answer, method = locate_answer(response)
    text = response[-WINDOW:] if isinstance(response, str) else ""
    # The scorer may expect the bare answer (reasoning-gym's score_answer does): try both.
    candidates = dict.fromkeys(c for c in (text.strip(), _marker_text(text), answer) if c)
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
