"""Small exact arithmetic expressions: evaluate them and list the results of common slips.

Used to explain wrong answers ("You answered 7 - 3 = 4 but the task asks for 7 + 3"). Only
numbers, + - × ÷ and parentheses are understood; anything else (or anything long) gives None,
so arbitrary metadata can never make this slow.
"""
from __future__ import annotations

import re
from fractions import Fraction
from typing import Iterator

MAX_CHARS = 200
_TOKEN_RE = re.compile(r"\s*(\d+(?:\.\d+)?|[-+×÷()])")
_CANONICAL = str.maketrans({"*": "×", "/": "÷", "−": "-", "x": "×"})
_SLIPS = ("+", "-", "×")


def tokenize(expr: str) -> list[str] | None:
    """Tokens of ``expr`` with unary minus folded into its number; None if not plain arithmetic."""
    text = expr.translate(_CANONICAL).strip()
    if not text or len(text) > MAX_CHARS:
        return None
    tokens: list[str] = []
    position = 0
    while position < len(text):
        match = _TOKEN_RE.match(text, position)
        if match is None:
            return None
        token, position = match.group(1), match.end()
        if tokens and tokens[-1] == "-" and token[0].isdigit() and _unary(tokens[:-1]):
            tokens[-1] = "-" + token
        else:
            tokens.append(token)
    return tokens


def _unary(before: list[str]) -> bool:
    return not before or before[-1] in "+-×÷("


def value(expr: str) -> Fraction | int | None:
    """The exact value of ``expr``, or None when it is not plain arithmetic (or divides by zero)."""
    tokens = tokenize(expr)
    return _evaluate(tokens) if tokens else None


def _evaluate(tokens: list[str]) -> Fraction | None:
    try:
        result, rest = _sum(tokens)
    except (ValueError, IndexError, ZeroDivisionError):
        return None
    return result if not rest else None


def _sum(tokens: list[str]) -> tuple[Fraction, list[str]]:
    total, rest = _product(tokens)
    while rest and rest[0] in "+-":
        right, tail = _product(rest[1:])
        total, rest = (total + right if rest[0] == "+" else total - right), tail
    return total, rest


def _product(tokens: list[str]) -> tuple[Fraction, list[str]]:
    total, rest = _factor(tokens)
    while rest and rest[0] in "×÷":
        right, tail = _factor(rest[1:])
        total, rest = (total * right if rest[0] == "×" else Fraction(total) / right), tail
    return total, rest


def _factor(tokens: list[str]) -> tuple[Fraction, list[str]]:
    if tokens[0] == "(":
        inner, rest = _sum(tokens[1:])
        if not rest or rest[0] != ")":
            raise ValueError("unbalanced parentheses")
        return inner, rest[1:]
    token = tokens[0]
    # Plain ints where possible: Fraction(str) parsing dominated the cost of explaining an answer.
    return (Fraction(token) if "." in token else int(token)), tokens[1:]


def render(tokens: list[str]) -> str:
    text = " ".join(tokens)
    return text.replace("( ", "(").replace(" )", ")")


def mistakes(expr: str) -> list[tuple[str, Fraction]]:
    """(wrong expression, its value) for one swapped operator, dropped parentheses and a strictly
    left-to-right reading; only those whose value differs from the right one, each value once."""
    tokens = tokenize(expr)
    right = _evaluate(tokens) if tokens else None
    if right is None:
        return []
    found: dict[Fraction, list[str]] = {}
    for variant in _variants(tokens):
        result = _evaluate(variant)
        if result is not None and result != right:
            found.setdefault(result, variant)
    return [(render(variant), result) for result, variant in found.items()]


def _variants(tokens: list[str]) -> Iterator[list[str]]:
    for index, token in enumerate(tokens):
        if token in _SLIPS:
            for other in _SLIPS:
                if other != token:
                    yield tokens[:index] + [other] + tokens[index + 1 :]
    flat = [t for t in tokens if t not in "()"]
    if len(flat) < len(tokens):
        yield flat
    yield _left_to_right(flat)


def _left_to_right(flat: list[str]) -> list[str]:
    # ((a + b) × c) - d: every operation bracketed so the usual precedence cannot reorder it
    tokens = flat[:1]
    for operator, number in zip(flat[1::2], flat[2::2]):
        tokens = ["(", *tokens, operator, number, ")"]
    return tokens[1:-1] if len(tokens) > 1 else tokens
