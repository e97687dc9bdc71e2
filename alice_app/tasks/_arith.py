"""Arithmetic shapes shared by the arithmetic families: render, evaluate exactly, and list the
results a confused solver would give (wrong operator, wrong order), which make tempting distractors.
"""
from __future__ import annotations

import re
import string
from dataclasses import dataclass
from functools import lru_cache
from random import Random
from typing import Sequence

from alice_app.tasks._common import CLAUSE_POSITIONS, check_choice, check_int, check_operands, digits_range


@dataclass(frozen=True)
class Shape:
    name: str
    expr: str  # the expression, with "×" for multiplication
    words: str  # how to compute it, for hints ("multiply first, then add")
    text: str = ""  # how the prompt says it, when not the bare expression
    ordered: bool = False  # keep the first operand the larger, so easy subtraction stays >= 0

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(f for _, f, _, _ in string.Formatter().parse(self.expr) if f))

    @property
    def arity(self) -> int:
        return len(self.fields)


SHAPES: dict[str, Shape] = {s.name: s for s in (
    Shape("add", "{a} + {b}", "add the two numbers"),
    Shape("sub", "{a} - {b}", "subtract the second number from the first", ordered=True),
    Shape("sum_words", "{a} + {b}", "add the two numbers", text="the sum of {a} and {b}"),
    Shape("mul", "{a} × {b}", "multiply the two numbers"),
    Shape("add3", "{a} + {b} + {c}", "add all three numbers"),
    Shape("add_sub", "{a} + {b} - {c}", "add the first two numbers, then subtract the third"),
    Shape("paren_mul", "({a} + {b}) × {c}", "add inside the parentheses first, then multiply"),
    Shape("mixed", "{a} + {b} × {c}", "multiply first, then add"),
    Shape("paren_sub", "{a} × ({b} - {c})", "subtract inside the parentheses first, then multiply"),
    Shape("mul_add", "{a} × {b} + {c}", "multiply first, then add"),
    Shape("sub_mul", "{a} - {b} × {c}", "multiply first, then subtract"),
    Shape("mul_add_mul", "{a} × {b} + {c} × {d}", "work out both products first, then add them"),
    Shape("add_mul_sub", "{a} + {b} × {c} - {d}", "multiply first, then add and subtract from left to right"),
    Shape("sub_mul_add", "{a} - {b} × {c} + {d}", "multiply first, then subtract and add from left to right"),
    Shape("paren_add_mul", "{a} × ({b} + {c}) - {d}", "add inside the parentheses, multiply, then subtract"),
    Shape("nested", "({a} + {b}) × ({c} - {d})", "work out both parentheses first, then multiply"),
    Shape("add_mul_mul", "{a} + {b} × {c} × {d}", "work out the products first, then add"),
)}

_APPLY = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, "×": lambda x, y: x * y}
_TOKEN = re.compile(r"\d+|[-+×()]")


def evaluate(expr: str) -> int:
    """Exact value of an expression of integers, + - × and parentheses (no eval())."""
    tokens = _TOKEN.findall(expr)
    if "".join(tokens) != "".join(expr.split()):
        raise ValueError(f"only integers, + - × and parentheses are allowed: {expr!r}")
    return evaluate_tokens(tokens)


def evaluate_tokens(tokens: Sequence[str]) -> int:
    """Recursive descent with the usual precedence; a hand-rolled parser because generation
    evaluates many variants per task and ast.parse was the bottleneck."""
    value, end = _sum(tokens, 0)
    if end != len(tokens):
        raise ValueError(f"unexpected {tokens[end]!r} in {' '.join(tokens)!r}")
    return value


def _sum(tokens: Sequence[str], i: int) -> tuple[int, int]:
    value, i = _product(tokens, i)
    while i < len(tokens) and tokens[i] in ("+", "-"):
        right, j = _product(tokens, i + 1)
        value, i = _APPLY[tokens[i]](value, right), j
    return value, i


def _product(tokens: Sequence[str], i: int) -> tuple[int, int]:
    value, i = _atom(tokens, i)
    while i < len(tokens) and tokens[i] == "×":
        right, i = _atom(tokens, i + 1)
        value *= right
    return value, i


def _atom(tokens: Sequence[str], i: int) -> tuple[int, int]:
    if i >= len(tokens):
        raise ValueError("expression ends too early")
    if tokens[i] == "(":
        value, i = _sum(tokens, i + 1)
        if i >= len(tokens) or tokens[i] != ")":
            raise ValueError("unbalanced parentheses")
        return value, i + 1
    if tokens[i] == "-":
        value, i = _atom(tokens, i + 1)
        return -value, i
    if tokens[i].isdigit():
        return int(tokens[i]), i + 1
    raise ValueError(f"unexpected {tokens[i]!r}")


def render(shape: Shape, operands: Sequence[int]) -> tuple[str, str]:
    """(expression, prompt text) with the operands filled in."""
    values = dict(zip(shape.fields, operands))
    return shape.expr.format(**values), (shape.text or shape.expr).format(**values)


def sample_operands(shape: Shape, rng: Random, digits: int) -> tuple[int, ...]:
    low, high = digits_range(digits)
    values = [rng.randint(low, high) for _ in range(shape.arity)]
    if shape.ordered and values[0] < values[1]:
        values[0], values[1] = values[1], values[0]
    return tuple(values)


def _fold(tokens: list[str]) -> int:
    """Evaluate numbers and operators strictly left to right, as a careless solver would."""
    value = int(tokens[0])
    for op, number in zip(tokens[1::2], tokens[2::2]):
        value = _APPLY[op](value, int(number))
    return value


@lru_cache(maxsize=1024)  # each task asks twice: for distractors and for metadata
def confusions(expr: str) -> tuple[int, ...]:
    """Results of plausible mistakes: one wrong operator, left-to-right order, dropped parentheses."""
    tokens = _TOKEN.findall(expr)
    flat = [t for t in tokens if t not in "()"]
    found = [_fold(flat), evaluate_tokens(flat)]
    for i, token in enumerate(tokens):
        if token in _APPLY:
            for other in "+-×".replace(token, ""):
                found.append(evaluate_tokens(tokens[:i] + [other] + tokens[i + 1:]))
    answer = evaluate_tokens(tokens)
    return tuple(v for v in dict.fromkeys(found) if v != answer)


def tempting_pool(expr: str) -> list[int]:
    """At least six distinct wrong values a solver might give: confusions and the most tempting
    near misses (one off, double) first; wider misses only when the pool would be too small."""
    answer = evaluate(expr)
    near = [answer + 1, answer - 1, 2 * answer]
    pool = list(dict.fromkeys(v for v in [*confusions(expr), *near] if v != answer))
    extra = [v for v in (answer + 10, answer + 2, answer - 2, answer - 10, answer + 3) if v not in pool]
    return pool + extra[: max(0, 6 - len(pool))]


def tempting_values(expr: str, rng: Random, count: int) -> list[int]:
    return rng.sample(tempting_pool(expr), count)


def order_mistakes(expr: str) -> list[int]:
    """Results of getting the order wrong: strictly left to right, parentheses dropped, right to left."""
    tokens = _TOKEN.findall(expr)
    flat = [t for t in tokens if t not in "()"]
    found = [_fold(flat), evaluate_tokens(flat), _fold_right(flat)]
    answer = evaluate_tokens(tokens)
    return [v for v in dict.fromkeys(found) if v != answer]


def _fold_right(tokens: list[str]) -> int:
    value = int(tokens[-1])
    for number, op in zip(tokens[-3::-2], tokens[-2::-2]):
        value = _APPLY[op](int(number), value)
    return value


def check_distracted_arithmetic(config, forms: Sequence[str], templates: Sequence[str]) -> None:
    """The checks shared by the arithmetic families whose config names distractor values."""
    check_choice("template", config.template, tuple(templates))
    check_choice("negation_form", config.negation_form, tuple(forms))
    check_int("distractors", config.distractors, 1, 3)
    check_int("operand_digits", config.operand_digits, 1, 3)
    check_choice("clause_position", config.clause_position, CLAUSE_POSITIONS)
    if config.operands is not None:
        check_operands(config.operands, SHAPES[config.template].arity)


# The params of the arithmetic families whose prompt names distractor values.
DISTRACTED_PARAMS = ("template", "negation_form", "distractors", "operand_digits", "clause_position", "operands")


def distracted_choices(forms: Sequence[str]) -> dict[str, tuple]:
    """The values ``mutate`` may move each param to (templates stay within their level)."""
    return {"negation_form": tuple(forms), "distractors": (1, 2, 3), "operand_digits": (1, 2, 3),
            "clause_position": CLAUSE_POSITIONS}


def distracted_metadata(config, operands: Sequence[int], expr: str, distractors: Sequence[int]) -> dict:
    """Task metadata; ``params`` is the task's shape without its numbers, which a repair variant keeps."""
    return {"template": config.template, "operands": list(operands), "operator": SHAPES[config.template].expr,
            "expression": expr, "distractors": list(distractors), "negated": True,
            "alternatives": list(confusions(expr)),
            "params": {name: getattr(config, name) for name in DISTRACTED_PARAMS if name != "operands"}}
