"""Find the final answer in a reply, normalised ("7", "-3", "3/4", "0.5").

Tries, in order: the whole reply is one number (the fast path); the value after the *last*
"answer" marker ("Answer: 7", "The answer is **seven**", "Answer: 3 + 4 = 7"); the last
``\\boxed{}``; LaTeX through math-verify; and finally the last number in the reply (a guess,
reported as such). Only a bounded window of the reply is read, so a 1 MB string costs the same
as a short one, and every loop is capped.

Two ways of naming no answer are recognised, so that neither can earn a reward: a last answer
line that hedges between values ("Answer: 7 or 8", "Answer: 7, 8, 9"), names a range ("Answer: at
least 7", "Answer: between 6 and 8", "Answer: 7 or more") or takes its value back on the same line
("Answer: 7. Wait, no: 8.") is method ``hedged`` with no answer, and a number the reply only
negates ("Answer: not 7", "it isn't 14") is never taken as its answer, not even by the last-number
guess. Repeating one value ("Answer: 7, 7") is not a hedge.
"""
from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from . import latex
from .. import arithmetic
from ..numbers import NUMBER, NUMBER_RE, NUMBER_WORDS, NUMBER_WORDS_RE, canonical, normalise, plain_number
from ..types import HEDGED, UNEVALUATED  # methods: several values offered; a computation left undone

WINDOW = 4000  # characters read from each end of a reply
SEGMENT = 200  # characters read after an answer marker
MAX_EXPRESSION_CHARS = 60  # longest stated computation that is evaluated
MAX_MARKERS = 8  # answer markers tried, from the last one back

_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_MARKUP_RE = re.compile(r"(?<!\d)\*\*|\*\*(?!\d)|__|`")  # bold, not Python's 2**3
_MARKER_RE = re.compile(
    r"\banswer\b(?:\s+(?:is|was|would\s+be|should\s+be|equals))?\s*[:=]?\s*", re.IGNORECASE
)
_NEGATED_RE = re.compile(r"(?:not|isn't|is\s+not)\b", re.IGNORECASE)
# A number right after a negation ("not 14", "isn't 7"): what the answer is not, never a guess at it.
# "n't be" ends a word ("won't be 14", "can't be 14"), so it has no word boundary before it.
_NEGATED_NUMBER_RE = re.compile(
    rf"(?:(?:\b(?:not|isn['’]t|is\s+not|cannot\s+be|never(?:\s+be)?|rather\s+than|instead\s+of)"
    rf"|n['’]t\s+be)\s+(?:equal\s+to\s+)?|\s*(?:≠|!=|=/=)\s*)(?:{NUMBER}|{NUMBER_WORDS})", re.IGNORECASE)
_EQUALS_RE = re.compile(r"(?<![!<>=/])=(?![=/])")  # an equals sign, not "!=", "<=", "==" or "=/="
# A number the reply then calls wrong ("14 is wrong", "the claim of 14 is false", "said 14, which is incorrect").
_REJECTED_NUMBER_RE = re.compile(
    rf"(?:{NUMBER}|{NUMBER_WORDS})(?=\s*,?\s*(?:which\s+)?(?:is|was)\s+(?:wrong|false|incorrect|a\s+mistake|"
    rf"not\s+(?:right|correct|the\s+answer))\b)", re.IGNORECASE)
# After the answer's value, inside its clause: another value offered beside it ("7 or 8", "7 8",
# "7 | 8", "7 ± 1", "seven or eight"); a parenthesis ("7 (3 + 4)") explains and is skipped.
_DOUBT = r"maybe|perhaps|possibly"  # words that doubt a value, wherever they stand beside it
_JOINERS = rf"(?:[,;|\\±–—&-]|\.{{2,}}|…|\+/-|\bor\b|\band\b|\bto\b|\bnor\b|\b(?:{_DOUBT})\b)"
_ALTERNATIVE_RE = re.compile(rf"\s*[$*]*\s*(?:{_JOINERS}\s*)*[$*]*\s*(?:[-−]?\d|{NUMBER_WORDS})", re.IGNORECASE)
_PARENTHESES_RE = re.compile(r"\([^()]*\)")
# After the clause: a list that goes on ("7, 8, 9", "7 (or 8)"), ending there, so "Answer: 7, 8 is
# the claim" is not a hedge.
_HEDGE_RE = re.compile(
    rf"\s*\(?\s*(?:{_JOINERS}\s*)+[-−]?\d[\d.,/]*"
    r"\s*(?:$|[.,;!?)\n]|\bor\b|\band\b)", re.IGNORECASE)
# A range instead of a value: "at least 7", "between 6 and 8", "7 or more", "more than 7".
_RANGE_BEFORE_RE = re.compile(r"(?:at\s+(?:least|most)|(?:more|less|fewer|greater|higher|lower)\s+than|between|"
                              r"up\s+to|no\s+(?:more|less|fewer)\s+than)\s", re.IGNORECASE)
_RANGE_AFTER_RE = re.compile(r"\s*(?:or|and)\s+(?:more|less|fewer|greater|higher|lower|above|below|over|under)\b",
                             re.IGNORECASE)
# The reply takes its value back, or doubts it, on the answer's own line: "7. Wait, no: 8", "7 <- actually 8",
# "7. Maybe 8", "7, but it could be 8".
_RETRACTION_RE = re.compile(r"\b(?:wait|actually|correction|i\s+mean|scratch\s+that|oops|sorry|make\s+(?:it|that)|"
                            rf"{_DOUBT}|or\s+rather|unless|(?:could|might)\s+(?:also\s+)?be)\b",
                            re.IGNORECASE)
# ... or on a later line that opens by reconsidering it: "Answer: 7\nActually, it is 8", "\nHmm, or maybe 8".
_RECONSIDERED_RE = re.compile(r"^\W*(?:(?:hmm+|um+|well)\W*)?(?:(?:wait|actually|correction|i\s+mean|scratch\s+that|"
                              r"oops|sorry|or|maybe|perhaps|on\s+second\s+thought)\b|no\s*[,.!:;—-])", re.IGNORECASE)
# Doubt before the value: "Answer: either 7 or 8", "Answer: maybe 7".
_DOUBT_BEFORE_RE = re.compile(rf"(?:either(?!\s+way)|{_DOUBT})\s", re.IGNORECASE)
_SIGN_WORD_RE = re.compile(r"(?:minus|negative)\s+(?=\d)", re.IGNORECASE)  # "minus 3": -3
_HEDGE = (None, HEDGED)
_EXPONENT_RE = re.compile(r"[eE][-+]?\d+")  # "2e3": scientific notation, not the number 2
MAX_EXPONENT = 40
_CLAUSE_END_RE = re.compile(r"\n|[.;!?](?:\s|$)|,\s|\s(?:because|since|so|as)\b", re.IGNORECASE)
_OPERATOR_NEXT_RE = re.compile(r"\s*(?:\*\*|[-+*/×÷·^−]|\\times|\\cdot|\\div)\s*[\d({\\]")
_EXPRESSION_RE = re.compile(r"(?:[\d\s(){}.+\-*/×÷·^−]|\\times|\\cdot|\\div)+")
_ASCII_OPERATORS = (("×", "*"), ("÷", "/"), ("·", "*"), ("−", "-"), ("\\times", "*"), ("\\cdot", "*"), ("\\div", "/"))
_LEAD_CHARS = " \t\n*_$(\"'"
_PROSE_WORDS = {"one", "zero"}  # too common in prose to count as an answer on their own


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
    if not _settled(found) and len(text) > WINDOW:  # an answer stated early in a very long reply
        head = _locate_explicit(_clean(text[:WINDOW]))
        found = head if head[0] is not None else found
    return found


def _clean(text: str) -> str:
    return _MARKUP_RE.sub("", _CONTROL_RE.sub(" ", text))


def _settled(found: tuple[str | None, str]) -> bool:
    """An answer was found, or a hedge that names none: either way nothing further is tried."""
    return found[0] is not None or found[1] == HEDGED


def _locate_in(text: str) -> tuple[str | None, str]:
    found = _locate_explicit(text)
    if _settled(found):
        return found
    if "\\" in text or "$" in text:
        value = _latex_answer(text)
        if value is not None:
            return value, "latex"
    value = _last_number(_unnegated(text))
    return value, ("last_number" if value is not None else "none")


def _locate_explicit(text: str) -> tuple[str | None, str]:
    plain = plain_number(text)
    if plain is not None:
        return plain, "plain"
    whole = text.strip(" \t\n.!") if len(text) <= SEGMENT else ""
    if whole and NUMBER_WORDS_RE.fullmatch(whole):
        return normalise(whole), "plain"
    found = _after_markers(text)
    if _settled(found):
        return found
    value = _boxed(text)
    return (value, "boxed") if value is not None else (None, "none")


def _after_markers(text: str) -> tuple[str | None, str]:
    # The last "Answer:" wins (a hedge there is the reply's final word: HEDGED); only the last few
    # are tried, so a reply made of thousands of markers cannot make extraction slow.
    for match in list(_MARKER_RE.finditer(text))[-MAX_MARKERS:][::-1]:
        found = _leading_answer(text[match.end() : match.end() + SEGMENT])
        if found is not None:
            return found
    return None, "none"


def _leading_answer(segment: str) -> tuple[str | None, str] | None:
    """(value, "marker"); (value, UNEVALUATED) for a computation left as the answer; (None, HEDGED); or
    None when the segment holds no answer."""
    line = segment.lstrip(_LEAD_CHARS.replace("(", ""))
    clause = _CLAUSE_END_RE.split(line, maxsplit=1)[0]
    if _NEGATED_RE.match(clause):  # "the answer is not 14, ..." names what the answer is not
        return None
    tail = line[len(clause):]  # what follows the clause: ", 8, 9" after "Answer: 7"
    equals = list(_EQUALS_RE.finditer(clause))
    if equals:  # "Answer: 3 + 4 = 7": the value is what the working ends in ("10 != 14" is not working)
        clause = clause[equals[-1].end():].lstrip(_LEAD_CHARS)
    if _RANGE_BEFORE_RE.match(clause) or _DOUBT_BEFORE_RE.match(clause):
        return _HEDGE
    clause = _SIGN_WORD_RE.sub("-", clause, count=1)
    match = NUMBER_RE.match(clause)
    exponent = match and _EXPONENT_RE.match(clause, match.end())
    if exponent:
        return _marked(_scientific(match.group(0), exponent.group(0)))
    if clause.startswith(("(", "-(", "−(")) or (match and _OPERATOR_NEXT_RE.match(clause, match.end())):
        return _evaluated(clause)
    match = match or NUMBER_WORDS_RE.match(clause)
    if match:
        value, rest = normalise(match.group(0)), clause[match.end():]
        offered, _, later = (rest + tail).partition("\n")
        if _RANGE_AFTER_RE.match(rest) or _retracted(value, offered) or _reconsidered(value, later):
            return _HEDGE
        if (_ALTERNATIVE_RE.match(_PARENTHESES_RE.sub(" ", rest)) or _HEDGE_RE.match(rest + tail)) \
                and not _repeats(value, offered):
            return _HEDGE
        return _marked(value)
    if clause.startswith(("±", "+/-")) or (line.startswith(("[", "{")) and
                                           len(NUMBER_RE.findall(line.split("\n", 1)[0])) > 1):
        return _HEDGE  # "±7", "[7, 8]": a set of values
    if clause.startswith("\\"):
        return _marked(_latex_answer("$" + clause.strip(" .$") + "$"))
    return None


def _marked(value: str | None) -> tuple[str, str] | None:
    return (value, "marker") if value is not None else None


def _evaluated(clause: str) -> tuple[str, str] | None:
    """An answer written as a computation ("Answer: 3 + 4", "Answer: (3 + 4) × 2"): its exact value,
    as UNEVALUATED, since the reply restated what it was asked to work out; "(7)" is just 7."""
    expression = _EXPRESSION_RE.match(clause).group(0)
    value = _arithmetic(expression)
    if value is None:
        return None
    bare = plain_number(expression.replace("(", " ").replace(")", " ").strip())
    return (value, "marker") if bare is not None else (value, UNEVALUATED)


def _unnegated(text: str) -> str:
    """``text`` without the numbers it says something is not ("not 14", "14 is wrong")."""
    return _REJECTED_NUMBER_RE.sub(" ", _NEGATED_NUMBER_RE.sub(" ", text))


def _values(text: str) -> set[str | None]:
    return {normalise(m.group(0)) for m in NUMBER_RE.finditer(_unnegated(text))}


def _repeats(value: str | None, offered: str) -> bool:
    """"7, 7" or "7 7": the values offered beside the answer are all the answer itself."""
    values = _values(offered)
    return bool(values) and values == {value} and "±" not in offered and "+/-" not in offered


def _retracted(value: str | None, offered: str) -> bool:
    """"7. Wait, no: 8": after a retraction cue, the same line ends at a different value (not at
    "Actually, 3 + 4 = 7", which checks the answer)."""
    offered = _PARENTHESES_RE.sub(" ", offered)
    cue = _RETRACTION_RE.search(offered)
    if cue is None:
        return False
    last = _last_number(_unnegated(offered[cue.end():]))
    return last is not None and last != value


def _reconsidered(value: str | None, later: str) -> bool:
    """"Answer: 7\nActually, it is 8": a line after the answer's opens by reconsidering it and
    ends at a different value (a line that does not, like "3 + 4 = 7 because ...", is ignored)."""
    for line in later.split("\n"):
        if _RECONSIDERED_RE.match(line):
            last = _last_number(_unnegated(_PARENTHESES_RE.sub(" ", line)))
            if last is not None and last != value:
                return True
    return False


def _scientific(mantissa: str, exponent: str) -> str | None:
    # "2e3" is 2000; an exponent past MAX_EXPONENT is kept as written (it equals no task's answer).
    power, base = int(exponent[1:]), normalise(mantissa)
    if abs(power) > MAX_EXPONENT or base is None:
        return mantissa + exponent
    return normalise(str(Fraction(base) * Fraction(10) ** power))


def _arithmetic(expression: str) -> str | None:
    # "7 - 3" as the stated answer: evaluate it exactly (small expressions only).
    for old, new in _ASCII_OPERATORS:
        expression = expression.replace(old, new)
    expression = expression.strip()
    exact = arithmetic.value(expression)  # + - × ÷ and parentheses: ALICE's own evaluator
    if exact is not None:
        return canonical(exact)
    if len(expression) > MAX_EXPRESSION_CHARS:  # math-verify reads long chains wrongly ("9^9^…" → 9)
        return expression[:SEGMENT]
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
    return latex.latex_value(snippet)


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


def marker_text(response: Any) -> str | None:
    if not isinstance(response, str):
        return None
    text = _clean(response[-WINDOW:])
    matches = list(_MARKER_RE.finditer(text))
    if not matches:
        return None
    return text[matches[-1].end() :].split("\n", 1)[0][:SEGMENT].strip(_LEAD_CHARS + ".")


def text_answer(response: Any) -> str | None:
    """A text answer ("TIPS,TAPS,BAPS", "P ∨ Q"): after the last "Answer:", else the last
    non-empty line if it is short; None when there is nothing to read."""
    marked = marker_text(response)
    if marked is not None:
        return marked or None
    if not isinstance(response, str):
        return None
    lines = [line.strip() for line in _clean(response[-WINDOW:]).splitlines() if line.strip()]
    last = lines[-1].strip(_LEAD_CHARS + ".") if lines else ""
    return last if last and len(last) <= SEGMENT else None
