"""negation_arithmetic: "If the result is NOT 14, what is 3 + 4?"

The NOT-clause names tempting wrong values (a wrong operator's result, an off-by-one, double the
answer); a careful solver ignores them and computes the expression.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from random import Random

from alice_app.tasks._arith import (
    PHRASINGS,
    WORDED_PARAMS,
    WORDINGS,
    SHAPES,
    ask,
    check_distracted_arithmetic,
    distracted_choices,
    distracted_metadata,
    evaluate,
    free_question,
    render,
    sample_operands,
    sentence,
    tempting_values,
)
from alice_app.tasks._common import make_task, resolve
from alice_app.tasks.registry import Family, register
from alice_app.types import Task

NAME = "negation_arithmetic"
# How each negation form opens the clause and repeats for further values.
FORMS = {"caps": ("is NOT", "NOT"), "lower": ("is not", "not"), "contraction": ("isn't", "isn't"),
         "not_equal": ("is not equal to", "not equal to")}


@dataclass(frozen=True)
class NegationArithmeticConfig:
    level: str = field(default="easy", metadata={"help": "difficulty level; picks the template set"})
    template: str = field(default="add", metadata={"help": "expression shape, one of the level's templates"})
    negation_form: str = field(default="caps", metadata={"help": "wording of the NOT-clause: " + ", ".join(FORMS)})
    distractors: int = field(default=1, metadata={"help": "how many values the NOT-clause names (1-3)"})
    operand_digits: int = field(default=1, metadata={"help": "digits per operand (1-3)"})
    clause_position: str = field(default="start", metadata={"help": "NOT-clause before (start) or after (end) the question"})
    phrasing: str = field(default="symbols", metadata={"help": "how the question is asked: " + ", ".join(PHRASINGS)})
    wording: str = field(default="template", metadata={"help": "how the whole prompt is worded: " + ", ".join(WORDINGS)
                                                        + " (free: composed from many frames)"})
    operands: tuple[int, ...] | None = field(default=None, metadata={"help": "fixed operands instead of random ones"})

    def validate(self) -> "NegationArithmeticConfig":
        check_distracted_arithmetic(self, FORMS, TEMPLATES)
        return self


def negation_clause(form: str, values: list[int]) -> str:
    first, again = FORMS[form]
    return f"the result {first} {values[0]}" + "".join(f" and {again} {v}" for v in values[1:])


def generate(level: str, seed: int, params: dict) -> Task:
    rng = Random(seed)
    config = NegationArithmeticConfig(level=level, **resolve(rng, LEVEL_TABLE[level], params)).validate()
    shape = SHAPES[config.template]
    operands = config.operands or sample_operands(shape, rng, config.operand_digits)
    expr, _ = render(shape, operands)
    distractors = tempting_values(expr, rng, config.distractors)
    clause = negation_clause(config.negation_form, distractors)
    request, mark = ask(shape, operands, config.phrasing)
    if config.wording == "free":
        question = free_question(NAME, level, seed, config.template, operands, expr, distractors, "ruled_out",
                                 config.clause_position)
    elif config.clause_position == "start":
        question = f"If {clause}, {request}{mark}"
    else:
        question = sentence(f"{request}, given that {clause}", mark)
    hint = (f"The NOT-clause only names values to rule out; they take no part in the calculation. "
            f"Ignore them and evaluate the expression itself: {shape.words}.")
    metadata = distracted_metadata(config, operands, expr, distractors, WORDED_PARAMS)
    return make_task(NAME, level, seed, params, question=question, answer=evaluate(expr), hint=hint,
                     metadata=metadata)


# Every level draws small one-digit arithmetic; the deception grows instead: more ruled-out
# values, the clause after the question, more wordings. Arithmetic size is its own axis: pass
# operand_digits (1-3) and any of TEMPLATES at any level to push a bigger model.
LEVEL_TABLE = {
    "easy": {"template": ("add", "sub", "sum_words"), "negation_form": ("caps", "lower"),
             "distractors": (1,), "operand_digits": (1,), "clause_position": ("start",)},
    "medium": {"template": ("add", "sub", "add3"), "negation_form": tuple(FORMS),
               "distractors": (2,), "operand_digits": (1,), "clause_position": ("start", "end")},
    "hard": {"template": ("add", "sub", "add3"), "negation_form": tuple(FORMS),
             "distractors": (3,), "operand_digits": (1,), "clause_position": ("end",)},
}
TEMPLATES = ("add", "sub", "sum_words", "mul", "add3", "add_sub", "paren_mul", "mixed", "paren_sub")

FAMILY = register(Family(
    name=NAME,
    description="Ignore the values a NOT-clause rules out and compute the expression",
    generate=generate,
    params=WORDED_PARAMS,
    choices=distracted_choices(FORMS, phrased=True, worded=True),
))
