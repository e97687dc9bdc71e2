"""The math-verify layer: LaTeX answers (\\frac, \\boxed, $…$) and equivalent forms.

math-verify's own timeout uses ``signal.alarm``, which only works in the main thread (the app
verifies in Gradio and scheduler threads), so it is switched off and the work is bounded here
instead: only short snippets are parsed, and a symbolic comparison runs only on small
expressions (``2^{2^{64}}`` parses fine but would never finish simplifying).
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Any

from .numbers import MAX_NUMBER_CHARS

MAX_SNIPPET_CHARS = 300  # the longest text handed to math-verify
_MAX_ATOM_DIGITS = 12
_MAX_EXPONENT = 64
_MAX_OPS = 24


@lru_cache(maxsize=1)
def _math_verify():
    import math_verify
    import math_verify.grader
    import math_verify.parser

    # We bound every input ourselves (see the module docstring); silence the one-off warning.
    math_verify.parser.TIMEOUT_WARNING_SHOWN = True
    math_verify.grader.TIMEOUT_WARNING_SHOWN = True
    return math_verify


def parse_latex(snippet: str) -> list[Any]:
    """math-verify's parse of a short snippet (sympy objects first); [] on anything odd."""
    snippet = snippet[-MAX_SNIPPET_CHARS:]
    try:
        parsed = _math_verify().parse(snippet, parsing_timeout=None)
    except Exception:  # math-verify is a best-effort layer: never let it break verification
        return []
    return [item for item in parsed if not isinstance(item, str)]


def sympy_to_fraction(expr: Any) -> Fraction | None:
    """The exact value of a sympy number atom (Integer, Rational, Float), else None."""
    if not getattr(expr, "is_Number", False):
        return None
    text = str(expr)
    if len(text) > MAX_NUMBER_CHARS:
        return None
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        return None


def small_value(expr: Any) -> Fraction | None:
    """The exact value of a small numeric expression ("7 - 3", "\\sqrt{4}"), else None."""
    value = sympy_to_fraction(expr)
    if value is not None or not is_small(expr):
        return value
    try:
        return sympy_to_fraction(expr.doit())
    except Exception:
        return None


def is_small(expr: Any) -> bool:
    """True when a symbolic comparison of ``expr`` is cheap: few operations, small atoms and powers."""
    try:
        if expr.count_ops() > _MAX_OPS:
            return False
        for atom in expr.atoms():
            if getattr(atom, "is_Integer", False) and len(str(abs(atom))) > _MAX_ATOM_DIGITS:
                return False
        return all(_small_power(node) for node in _powers(expr))
    except Exception:
        return False


def _powers(expr: Any) -> list[Any]:
    import sympy

    return list(expr.atoms(sympy.Pow))


def _small_power(node: Any) -> bool:
    exponent = node.exp
    return bool(exponent.is_Number) and abs(float(exponent)) <= _MAX_EXPONENT


def equivalent(expected: str, expr: Any) -> bool:
    """math-verify's judgement that ``expr`` equals the expected answer (small inputs only)."""
    gold = parse_latex(f"${expected}$")
    if not gold or not is_small(expr):
        return False
    try:
        return bool(_math_verify().verify(gold, [expr], timeout_seconds=None))
    except Exception:
        return False
