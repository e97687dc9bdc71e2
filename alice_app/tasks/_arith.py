"""Arithmetic shapes shared by the arithmetic families: render them, sample their operands, and
pick tempting wrong values. Evaluation and the list of tempting mistakes are ``alice_app.arithmetic``
(the one evaluator), imported here under the names the families use.
"""
from __future__ import annotations

import string
from dataclasses import dataclass
from random import Random
from typing import Sequence

from alice_app.arithmetic import confusions, evaluate, order_mistakes  # noqa: F401  (names the families import)
from alice_app.numbers import spell
from alice_app.tasks._common import CLAUSE_POSITIONS, check_choice, check_int, check_operands, digits_range
from alice_app.tasks.wordings import WORDINGS, compose, wording_key


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

def render(shape: Shape, operands: Sequence[int]) -> tuple[str, str]:
    """(expression, prompt text) with the operands filled in."""
    values = dict(zip(shape.fields, operands))
    return shape.expr.format(**values), (shape.text or shape.expr).format(**values)


# How a prompt asks for the expression. "symbols" is every level's wording ("what is 3 + 4?"); the
# others say the same thing in other words, for the hunt's mutations and for training on more
# varied wordings (TrainConfig.rephrase_share). Only the words change: the values and answer do not
# ("spelled" writes the operands out: "what is seven plus four?").
PHRASINGS = ("symbols", "words", "how_much", "work_out", "verb", "spelled", "value_of")
_OPERATOR_WORDS = ((" + ", " plus "), (" - ", " minus "), (" × ", " times "))
# Shapes an instruction can name directly ("add 3 and 4", "subtract 2 from 7").
_VERBS = {"add": "add {a} and {b}", "sum_words": "add {a} and {b}", "sub": "subtract {b} from {a}",
          "add3": "add {a}, {b} and {c}", "mul": "multiply {a} by {b}"}


def in_words(text: str) -> str:
    """'3 + 4 × 5' -> '3 plus 4 times 5' (parentheses kept)."""
    for symbol, word in _OPERATOR_WORDS:
        text = text.replace(symbol, word)
    return text


def ask(shape: Shape, operands: Sequence[int], phrasing: str = "symbols") -> tuple[str, str]:
    """(request, closing mark): how a prompt asks for the expression, in lower case without its
    closing "?" or ".", so a family can put a clause before or after it ("If …, add 3 and 4.")."""
    if phrasing == "spelled":
        return f"what is {in_words(render(shape, [spell(n) for n in operands])[1])}", "?"
    _, text = render(shape, operands)
    if phrasing == "value_of":
        return f"find the value of {text}", "."
    if phrasing == "words":
        return f"what is {in_words(text)}", "?"
    if phrasing == "how_much":
        return f"how much is {in_words(text)}", "?"
    if phrasing == "work_out":
        return f"work out {text}", "."
    if phrasing == "verb":
        verb = _VERBS.get(shape.name)
        if verb is None:
            return f"calculate {in_words(text)}", "."
        return verb.format(**dict(zip(shape.fields, operands))), "."
    return f"what is {text}", "?"


def sentence(request: str, mark: str) -> str:
    """'what is 3 + 4', '?' -> 'What is 3 + 4?'."""
    return request[:1].upper() + request[1:] + mark


def sample_operands(shape: Shape, rng: Random, digits: int) -> tuple[int, ...]:
    low, high = digits_range(digits)
    values = [rng.randint(low, high) for _ in range(shape.arity)]
    if shape.ordered and values[0] < values[1]:
        values[0], values[1] = values[1], values[0]
    return tuple(values)


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


def check_distracted_arithmetic(config, forms: Sequence[str], templates: Sequence[str]) -> None:
    """The checks shared by the arithmetic families whose config names distractor values."""
    check_choice("template", config.template, tuple(templates))
    check_choice("negation_form", config.negation_form, tuple(forms))
    check_int("distractors", config.distractors, 1, 3)
    check_int("operand_digits", config.operand_digits, 1, 3)
    check_choice("clause_position", config.clause_position, CLAUSE_POSITIONS)
    check_choice("phrasing", getattr(config, "phrasing", "symbols"), PHRASINGS)
    check_choice("wording", getattr(config, "wording", "template"), WORDINGS)
    if config.operands is not None:
        check_operands(config.operands, SHAPES[config.template].arity)


# The params of the arithmetic families whose prompt names distractor values; the phrased ones
# (whose question is asked in words, not only as an expression) add ``phrasing``.
DISTRACTED_PARAMS = ("template", "negation_form", "distractors", "operand_digits", "clause_position", "operands")
PHRASED_PARAMS = DISTRACTED_PARAMS + ("phrasing",)
# ... and those whose whole prompt can also be composed freely (``wording="free"``: alice_app.tasks.wordings).
WORDED_PARAMS = PHRASED_PARAMS + ("wording",)


def distracted_choices(forms: Sequence[str], phrased: bool = False, worded: bool = False) -> dict[str, tuple]:
    """The values ``mutate`` may move each param to (templates stay within their level)."""
    choices = {"negation_form": tuple(forms), "distractors": (1, 2, 3), "operand_digits": (1, 2, 3),
               "clause_position": CLAUSE_POSITIONS}
    if phrased:
        choices["phrasing"] = PHRASINGS
    if worded:
        choices["wording"] = WORDINGS
    return choices


def free_question(family: str, level: str, seed: int, template: str, operands: Sequence[int], expr: str,
                  distractors: Sequence[int] = (), kind: str = "ruled_out", position: str = "start") -> str:
    """A task's free wording (``wording="free"``); its control twin passes no distractors and gets the
    same question, because the frames are picked by the family task's (family, level, seed)."""
    return compose(template, operands, expr, distractors=distractors, kind=kind, position=position,
                   key=wording_key(family, level, seed))


def distracted_metadata(config, operands: Sequence[int], expr: str, distractors: Sequence[int],
                        params: Sequence[str] = DISTRACTED_PARAMS) -> dict:
    """Task metadata; ``params`` is the task's shape without its numbers, which a repair variant keeps."""
    return {"template": config.template, "operands": list(operands), "operator": SHAPES[config.template].expr,
            "expression": expr, "distractors": list(distractors), "negated": True,
            "alternatives": list(confusions(expr)),
            "params": {name: getattr(config, name) for name in params if name != "operands"}}
