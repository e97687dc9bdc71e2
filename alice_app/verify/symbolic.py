"""The sympy/math-verify side of the LaTeX layer. It runs only inside sandbox workers
(``python -m alice_app.verify.symbolic``); the verifier talks to it through ``latex.py``.

Inside the worker every expression is still checked before sympy evaluates it: only numbers,
symbols, + - × ÷, bounded powers and a few cheap functions are evaluated or compared
(``is_small``); factorials, gamma, binomials, sums, products, integrals... are refused by name.
The worker's deadline is the backstop for anything this check misses.
"""
from __future__ import annotations

import json
import os
import sys
from fractions import Fraction
from functools import lru_cache
from typing import Any

from ..numbers import MAX_NUMBER_CHARS, canonical

MAX_SNIPPET_CHARS = 300  # the longest text handed to math-verify
MAX_EXPRESSION_TEXT = 200  # the longest expression echoed back as an answer
MAX_DIGITS = 2000  # the largest number (in digits) an evaluation may produce
_MAX_ATOM_CHARS = 25
_MAX_OPS = 24
_MAX_NODES = 200
# Node types whose evaluation cost is bounded by the size of their arguments.
_CHEAP = {
    "Add", "Mul", "Pow", "Abs", "sign", "floor", "ceiling", "Min", "Max", "sin", "cos", "tan",
    "log", "exp", "Equality", "Unequality", "StrictLessThan", "LessThan", "StrictGreaterThan",
    "GreaterThan", "Tuple", "FiniteSet", "Interval", "Symbol", "Dummy", "Pi", "Exp1",
    "ImaginaryUnit", "Half", "One", "NegativeOne", "Zero", "Integer", "Rational", "Float",
    "IntegerConstant", "RationalConstant",
}


@lru_cache(maxsize=1)
def _math_verify():
    import math_verify
    import math_verify.grader
    import math_verify.parser

    # Bounded by the sandbox's deadline instead (signal-based timeouts need the main thread).
    math_verify.parser.TIMEOUT_WARNING_SHOWN = True
    math_verify.grader.TIMEOUT_WARNING_SHOWN = True
    return math_verify


def parse_latex(snippet: str) -> list[Any]:
    """math-verify's parse of a short snippet (sympy objects first); [] on anything odd."""
    try:
        parsed = _math_verify().parse(snippet[-MAX_SNIPPET_CHARS:], parsing_timeout=None)
    except Exception:  # a best-effort layer: never let it break verification
        return []
    return [item for item in parsed if not isinstance(item, str)]


def refusal(expr: Any) -> str | None:
    """Why evaluating ``expr`` could be costly (e.g. "factorial"), or None when it is cheap."""
    try:
        nodes = 0
        for node in _preorder(expr):
            nodes += 1
            name = type(node).__name__
            if name not in _CHEAP and not getattr(node, "is_Integer", False):
                return name
            if getattr(node, "is_Number", False) and len(str(node)) > _MAX_ATOM_CHARS:
                return "a number with too many digits"
        if nodes > _MAX_NODES or expr.count_ops() > _MAX_OPS:
            return "too many operations"
        if _digits(expr) > MAX_DIGITS:
            return "a result with too many digits"
    except Exception as exc:  # an object sympy cannot walk is not evaluated either
        return type(exc).__name__
    return None


def is_small(expr: Any) -> bool:
    return refusal(expr) is None


def _preorder(expr: Any):
    import sympy

    return sympy.preorder_traversal(expr)


def _digits(expr: Any) -> float:
    """An upper bound on the digits of the value of ``expr`` (1 for anything not a number)."""
    if getattr(expr, "is_Number", False):
        return len(str(expr))
    name = type(expr).__name__
    parts = [_digits(arg) for arg in expr.args]
    if name == "Pow":
        exponent = expr.exp
        if not exponent.is_Number:
            return float("inf")
        return parts[0] * max(1.0, abs(float(exponent)))
    if name == "Mul":
        return sum(parts)
    return max(parts, default=1) + 1


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


def latex_value(snippet: str) -> str | None:
    """The canonical value of the first expression in ``snippet`` ("7", "3/4"), else its text
    ("sqrt(2)") when short, else None."""
    for expr in parse_latex(snippet):
        value = small_value(expr)
        if value is not None:
            return canonical(value, str(expr))
        text = str(expr)
        return text if len(text) <= MAX_EXPRESSION_TEXT else None
    return None


def equivalent(expected: str, answer: str) -> tuple[bool, str]:
    """(math-verify proves ``answer`` equal to ``expected``, the reason when it cannot)."""
    gold = parse_latex(f"${expected}$")
    answers = parse_latex(f"${answer}$")
    for expr in answers:
        why = refusal(expr)
        if why is not None:
            return False, f"too costly to evaluate ({why}); left undecided"
        if gold and all(is_small(g) for g in gold):
            try:
                if _math_verify().verify(gold, [expr], timeout_seconds=None):
                    return True, "an equivalent form (math-verify)"
            except Exception:
                continue
    return False, "not a plain number"


def handle(request: dict) -> Any:
    op = request.get("op")
    if op == "value":
        return latex_value(str(request["snippet"]))
    if op == "equivalent":
        return list(equivalent(str(request["expected"]), str(request["answer"])))
    if op == "ping":
        return "pong"
    raise ValueError(f"unknown op {op!r}")


def main() -> None:
    """Serve requests (one JSON object per line) until stdin closes."""
    protocol = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)  # anything a library prints goes to stderr, never into the protocol
    _math_verify()
    protocol.write(b'{"ready": true}\n')
    for line in sys.stdin.buffer:
        try:
            reply = {"ok": handle(json.loads(line))}
        except Exception as exc:
            reply = {"error": f"{type(exc).__name__}: {exc}"[:300]}
        protocol.write(json.dumps(reply).encode() + b"\n")


if __name__ == "__main__":
    main()
