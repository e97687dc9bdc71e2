"""plain_arithmetic: "What is 3 + 4?" — the control.

The same sums as negation_arithmetic for the same (level, seed), with no NOT-clause: when a model
solves these but fails the negated ones, the failure comes from the negation, not the arithmetic.
It deliberately reuses negation_arithmetic's config and level table (so the numbers match).
"""
from __future__ import annotations

from alice_app.tasks import negation_arithmetic
from alice_app.tasks._arith import PHRASINGS, SHAPES, ask, free_question, sentence
from alice_app.tasks._common import make_task
from alice_app.tasks.wordings import WORDINGS
from alice_app.tasks.registry import Family, register
from alice_app.types import Task

NAME = "plain_arithmetic"


def generate(level: str, seed: int, params: dict) -> Task:
    twin = negation_arithmetic.generate(level, seed, params)  # validates params, draws the numbers
    return from_twin(twin, params)


def from_twin(twin: Task, params: dict | None = None) -> Task:
    """The plain sum of a negation_arithmetic task (its control twin): same numbers, no NOT-clause."""
    meta = twin.metadata
    shape = SHAPES[meta["template"]]
    phrasing = meta["params"].get("phrasing", "symbols")
    wording = meta["params"].get("wording", "template")  # tasks stored before the param were templates
    hint = f"There is nothing to rule out here; evaluate the expression: {shape.words}."
    metadata = {"template": meta["template"], "operands": meta["operands"], "operator": meta["operator"],
                "expression": meta["expression"], "distractors": [], "negated": False,
                "alternatives": meta["alternatives"],
                "params": {"template": meta["template"], "operand_digits": meta["params"]["operand_digits"],
                           "phrasing": phrasing, "wording": wording}}
    question = (free_question(twin.family, twin.level, twin.seed, meta["template"], meta["operands"], meta["expression"])
                if wording == "free" else sentence(*ask(shape, meta["operands"], phrasing)))
    return make_task(NAME, twin.level, twin.seed, params or {}, question=question, answer=int(twin.answer),
                     hint=hint, metadata=metadata)


LEVEL_TABLE = negation_arithmetic.LEVEL_TABLE

FAMILY = register(Family(
    name=NAME,
    description="Control: negation_arithmetic's sums with no NOT-clause",
    generate=generate,
    core=False,
    params=("template", "operand_digits", "phrasing", "wording", "operands"),
    choices={"operand_digits": (1, 2, 3), "phrasing": PHRASINGS, "wording": WORDINGS},
))
