"""Small exact arithmetic: evaluate an expression of numbers, + - × ÷ and parentheses, and list
the results of the tempting mistakes (one wrong operator, parentheses dropped, strictly left to
right), which families use as distractors and the failure labeller uses to explain an answer.

The one evaluator of ALICE (never ``eval``). Hand-rolled recursive descent, because generation
evaluates many variants per task. ``*``, ``/``, ``x`` and ``−`` are read as ×, ÷, × and -;
anything else, or anything longer than MAX_CHARS, is not arithmetic.
"""
from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache
from typing import Iterator, Sequence

MAX_CHARS = 200
_TOKEN_RE = re.compile(r"\d+(?:\.\d+)?|[-+×÷()]")
_ASCII = str.maketrans({"*": "×", "/": "÷", "−": "-", "x": "×"})
_SLIPS = ("+", "-", "×")  # the operators a careless solver swaps for one another
Number = int | Fraction


def tokenize(expr: str) -> list[str] | None:
    """Tokens of ``expr`` with a unary minus folded into its number; None if not plain arithmetic."""
    text = str(expr).translate(_ASCII)
    if not text.strip() or len(text) > MAX_CHARS:
        return None
    raw = _TOKEN_RE.findall(text)
    if "".join(raw) != "".join(text.split()):
        return None
    tokens: list[str] = []
    for token in raw:
        if tokens and tokens[-1] == "-" and token[0].isdigit() and _unary(tokens[:-1]):
            tokens[-1] = "-" + token
        else:
            tokens.append(token)
    return tokens


def _unary(before: list[str]) -> bool:
    return not before or before[-1] in "+-×÷("


def evaluate(expr: str) -> Number:
    """The exact value of ``expr`` (an int when whole); ValueError when it is not arithmetic."""
    tokens = tokenize(expr)
    if tokens is None:
        raise ValueError(f"only numbers, + - × ÷ and parentheses are allowed: {str(expr)[:80]!r}")
    return evaluate_tokens(tokens)


def value(expr: str) -> Number | None:
    """The exact value of ``expr``, or None when it is not plain arithmetic (or divides by zero)."""
    tokens = tokenize(expr)
    return _safe(tokens) if tokens else None


def _safe(tokens: Sequence[str]) -> Number | None:
    try:
        return evaluate_tokens(tokens)
    except (ValueError, ZeroDivisionError):
        return None


def evaluate_tokens(tokens: Sequence[str]) -> Number:
    """Recursive descent with the usual precedence; ValueError on a malformed token list."""
    result, end = _sum(tokens, 0)
    if end != len(tokens):
        raise ValueError(f"unexpected {tokens[end]!r} in {' '.join(tokens)!r}")
    return _whole(result)


def _whole(number: Number) -> Number:
    return number.numerator if isinstance(number, Fraction) and number.denominator == 1 else number


def _sum(tokens: Sequence[str], i: int) -> tuple[Number, int]:
    total, i = _product(tokens, i)
    while i < len(tokens) and tokens[i] in ("+", "-"):
        right, j = _product(tokens, i + 1)
        total, i = (total + right if tokens[i] == "+" else total - right), j
    return total, i


def _product(tokens: Sequence[str], i: int) -> tuple[Number, int]:
    total, i = _atom(tokens, i)
    while i < len(tokens) and tokens[i] in ("×", "÷"):
        right, j = _atom(tokens, i + 1)
        total, i = (total * right if tokens[i] == "×" else Fraction(total) / right), j
    return total, i


def _atom(tokens: Sequence[str], i: int) -> tuple[Number, int]:
    if i >= len(tokens):
        raise ValueError("expression ends too early")
    token = tokens[i]
    if token == "(":
        inner, i = _sum(tokens, i + 1)
        if i >= len(tokens) or tokens[i] != ")":
            raise ValueError("unbalanced parentheses")
        return inner, i + 1
    if token == "-":
        inner, i = _atom(tokens, i + 1)
        return -inner, i
    if token.lstrip("-")[:1].isdigit():
        # Plain ints where possible: Fraction(str) parsing dominated the cost of explaining an answer.
        return (Fraction(token) if "." in token else int(token)), i + 1
    raise ValueError(f"unexpected {token!r}")


def render(tokens: Sequence[str]) -> str:
    text = " ".join(tokens)
    return text.replace("( ", "(").replace(" )", ")")


@lru_cache(maxsize=1024)  # generation asks twice per task: for distractors and for metadata
def mistakes(expr: str) -> tuple[tuple[str, Number], ...]:
    """(wrong expression, its value) for each tempting mistake, first the order slips (strictly
    left to right, parentheses dropped), then one swapped operator; only those whose value
    differs from the right one, each value once."""
    tokens = tokenize(expr)
    right = _safe(tokens) if tokens else None
    if right is None:
        return ()
    found: dict[Number, list[str]] = {}
    for variant in _variants(tokens):
        result = _safe(variant)
        if result is not None and result != right:
            found.setdefault(result, variant)
    return tuple((render(variant), result) for result, variant in found.items())


def confusions(expr: str) -> tuple[Number, ...]:
    """The values of ``mistakes(expr)``."""
    return tuple(result for _, result in mistakes(expr))


def order_mistakes(expr: str) -> list[Number]:
    """Results of getting the order wrong: strictly left to right, parentheses dropped, right to left."""
    tokens = tokenize(expr) or []
    flat = [t for t in tokens if t not in "()"]
    right = _safe(tokens)
    found = [_safe(_left_to_right(flat)), _safe(flat), _safe(_right_to_left(flat))]
    return [v for v in dict.fromkeys(found) if v is not None and v != right]


def _variants(tokens: list[str]) -> Iterator[list[str]]:
    flat = [t for t in tokens if t not in "()"]
    yield _left_to_right(flat)
    yield flat
    for index, token in enumerate(tokens):
        if token in _SLIPS:
            for other in _SLIPS:
                if other != token:
                    yield tokens[:index] + [other] + tokens[index + 1:]


def _left_to_right(flat: list[str]) -> list[str]:
    # ((a + b) × c) - d: every operation bracketed so the usual precedence cannot reorder it
    tokens = flat[:1]
    for operator, number in zip(flat[1::2], flat[2::2]):
        tokens = ["(", *tokens, operator, number, ")"]
    return tokens[1:-1] if len(tokens) > 1 else tokens


def _right_to_left(flat: list[str]) -> list[str]:
    # a - (b × (c + d))
    tokens = flat[-1:]
    for number, operator in zip(flat[-3::-2], flat[-2::-2]):
        tokens = ["(", number, operator, *tokens, ")"]
    return tokens[1:-1] if len(tokens) > 1 else tokens


def working(expr: str) -> list[str]:
    """The steps of evaluating ``expr`` one operation at a time, innermost parentheses first, then × and ÷,
    then + and - from left to right, each step rewriting the whole expression: ["1 + 8 × 5 = 1 + 40",
    "1 + 40 = 41"] for "1 + 8 × 5" (the last step ends in the value). Restating the expression keeps every
    step on the question's own numbers. When a step's result is not whole, the working is the one line
    "expression = value" ("7 ÷ 2 + 1 = 9/2"); [] when ``expr`` is not plain arithmetic (or divides by zero)
    or is a single number."""
    tokens = original = tokenize(expr)
    total = _safe(tokens) if tokens else None
    if total is None:
        return []
    tokens = _unwrap(tokens)
    steps: list[str] = []
    while len(tokens) > 1:
        start, end = _innermost(tokens)
        inner = tokens[start:end]
        products = [i for i, token in enumerate(inner) if token in ("×", "÷")]
        at = start + (products[0] if products else next(i for i, token in enumerate(inner) if token in ("+", "-")))
        result = evaluate_tokens(tokens[at - 1:at + 2])
        if isinstance(result, Fraction):
            return [f"{render(original)} = {total}"]
        reduced = _unwrap(tokens[:at - 1] + [str(result)] + tokens[at + 2:])
        steps.append(f"{render(tokens)} = {render(reduced)}")
        tokens = reduced
    return steps


def _unwrap(tokens: list[str]) -> list[str]:
    """``tokens`` without parentheses around a single number: "(40) × 2" → "40 × 2"."""
    for i in range(len(tokens) - 2):
        if tokens[i] == "(" and tokens[i + 2] == ")":
            return _unwrap(tokens[:i] + [tokens[i + 1]] + tokens[i + 3:])
    return tokens


def _innermost(tokens: Sequence[str]) -> tuple[int, int]:
    """(start, end) of the tokens inside the first innermost parentheses, or of all the tokens."""
    if ")" not in tokens:
        return 0, len(tokens)
    close = tokens.index(")")
    return max(i for i in range(close) if tokens[i] == "(") + 1, close
