"""Exact numbers from text: digits, fractions, decimals and English number words.

Everything is exact (``Fraction``) so that 7 == 7.0 == 14/2 without float rounding, and
every function is bounded: no exponent notation is ever accepted (``1e999999999`` would make
``Fraction`` build a gigantic integer), and inputs longer than ``MAX_NUMBER_CHARS`` are refused.
"""
from __future__ import annotations

import re
from functools import lru_cache
from decimal import Decimal, InvalidOperation
from fractions import Fraction

MAX_NUMBER_CHARS = 60  # a longer "number" is noise, not an answer; also keeps int parsing cheap

# A signed integer, decimal or fraction; thousands separators only in strict groups of three so
# that a list such as "3,8,5" is never read as one number.
NUMBER = r"(?:(?<![\w)])[-−+])?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s*/\s*\d+(?:\.\d+)?)?"
NUMBER_RE = re.compile(NUMBER)
_INTEGER_RE = re.compile(r"[-+]?\d{1,40}")
_PLAIN_RE = re.compile(rf"\s*\(?\s*({NUMBER})\s*\)?\s*[.!]?\s*")

_UNITS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
).split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_SCALES = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}
WORD_VALUES = {w: i for i, w in enumerate(_UNITS)} | {w: 20 + 10 * i for i, w in enumerate(_TENS)}
_WORD = r"(?:" + "|".join(sorted([*WORD_VALUES, *_SCALES], key=len, reverse=True)) + r")"
NUMBER_WORDS = rf"(?:(?:minus|negative)\s+)?\b{_WORD}\b(?:(?:[\s-]+and)?[\s-]+\b{_WORD}\b){{0,11}}"
NUMBER_WORDS_RE = re.compile(NUMBER_WORDS, re.IGNORECASE)


def spell(number: int) -> str:
    """An integer in words, as the parser above reads them: 7 -> "seven", 42 -> "forty-two",
    -305 -> "minus three hundred five" (|number| < 1,000,000)."""
    if number < 0:
        return "minus " + spell(-number)
    if number >= 1000:
        if number >= 10**6:
            raise ValueError(f"spell covers numbers below a million, not {number}")
        rest = number % 1000
        return spell(number // 1000) + " thousand" + (f" {spell(rest)}" if rest else "")
    if number >= 100:
        rest = number % 100
        return f"{_UNITS[number // 100]} hundred" + (f" {spell(rest)}" if rest else "")
    if number >= 20:
        return _TENS[number // 10 - 2] + (f"-{_UNITS[number % 10]}" if number % 10 else "")
    return _UNITS[number]


def to_fraction(text: str) -> Fraction | None:
    """The exact value of a numeral ("7", "-3", "7.0", "3/4", "1,000", "seven"), else None."""
    text = text.strip()
    if not text or len(text) > MAX_NUMBER_CHARS:
        return None
    return _cached_value(text)


@lru_cache(maxsize=8192)  # answers repeat a lot (task answers, common wrong answers)
def _cached_value(text: str) -> Fraction | None:
    if _INTEGER_RE.fullmatch(text):  # the common case, without Decimal
        return Fraction(int(text))
    text = text.replace("−", "-")
    if NUMBER_RE.fullmatch(text):
        return _numeral_value(text)
    if NUMBER_WORDS_RE.fullmatch(text):
        return words_to_fraction(text)
    return None


def _numeral_value(text: str) -> Fraction | None:
    numerator, _, denominator = text.replace(",", "").replace(" ", "").partition("/")
    try:
        value = Fraction(Decimal(numerator))
        return value / Fraction(Decimal(denominator)) if denominator else value
    except (ZeroDivisionError, InvalidOperation, ValueError):
        return None


def words_to_fraction(text: str) -> Fraction | None:
    """"twenty-one" → 21, "minus three" → -3, "one hundred and five" → 105; None if not a number.

    Word order is checked, so "seven seven" or "three twenty" is not read as a sum.
    """
    tokens = [t for t in re.split(r"[\s-]+", text.lower().strip()) if t and t != "and"]
    sign = 1
    if tokens and tokens[0] in ("minus", "negative"):
        sign, tokens = -1, tokens[1:]
    if not tokens:
        return None
    total = current = 0
    previous = "scale"  # what may follow: after a scale anything; after tens only a unit 1-9
    for token in tokens:
        kind = _word_kind(token)
        if kind is None or not _may_follow(previous, kind, token):
            return None
        if kind == "hundred":
            current = max(current, 1) * 100
        elif kind == "scale":
            total, current = total + max(current, 1) * _SCALES[token], 0
        else:
            current += WORD_VALUES[token]
        previous = kind
    return Fraction(sign * (total + current))


def _word_kind(token: str) -> str | None:
    if token == "hundred":
        return "hundred"
    if token in _SCALES:
        return "scale"
    if token in _TENS:
        return "tens"
    return "unit" if token in WORD_VALUES else None


def _may_follow(previous: str, kind: str, token: str) -> bool:
    if kind in ("hundred", "scale"):
        return previous in ("unit", "tens", "hundred") or previous == "scale" and kind == "hundred"
    if previous == "tens":
        return kind == "unit" and 0 < WORD_VALUES[token] < 10
    return previous in ("scale", "hundred")


def canonical(value: Fraction, source: str = "") -> str:
    """The normal form of an exact value: "7", "-3", "3/4" (reduced), or "0.5" for a decimal input."""
    if value.denominator == 1:
        return str(value.numerator)
    if "/" not in source and "." in source:
        return _decimal_text(value, source)
    return f"{value.numerator}/{value.denominator}"


def _decimal_text(value: Fraction, source: str) -> str:
    # The source is an exact decimal numeral: re-print it rather than divide (no rounding).
    text = format(Decimal(source.strip().replace("−", "-").replace(",", "")), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def normalise(text: str) -> str | None:
    """The canonical form of a numeral or number words, else None."""
    text = text.strip()
    return _cached_normal(text) if text and len(text) <= MAX_NUMBER_CHARS else None


@lru_cache(maxsize=8192)
def _cached_normal(text: str) -> str | None:
    value = _cached_value(text)
    return None if value is None else canonical(value, text)


def plain_number(text: str) -> str | None:
    """Fast path: the whole text is one number (optionally in parentheses or with a full stop)."""
    if len(text) > 4 * MAX_NUMBER_CHARS:
        return None
    match = _PLAIN_RE.fullmatch(text)
    return normalise(match.group(1)) if match else None
