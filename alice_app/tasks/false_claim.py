"""false_claim: "Ann says that 3 + 4 is 14. That is wrong. What is 3 + 4?"

The prompt states wrong results with confidence; the solver must not copy or adjust them.
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

NAME = "false_claim"
NAMES = ("Ann", "Ben", "Cleo")
# How each form declares the claims wrong, for one, two and three claims.
FORMS = {
    "wrong": ("That is wrong.", "Both are wrong.", "All three are wrong."),
    "false": ("That claim is false.", "Both claims are false.", "All three claims are false."),
    "not_correct": ("That is NOT correct.", "Neither is correct.", "None of them is correct."),
}


@dataclass(frozen=True)
class FalseClaimConfig:
    level: str = field(default="easy", metadata={"help": "difficulty level; picks the template set"})
    template: str = field(default="add", metadata={"help": "expression shape, one of the level's templates"})
    negation_form: str = field(default="wrong", metadata={"help": "how the claims are declared wrong: " + ", ".join(FORMS)})
    distractors: int = field(default=1, metadata={"help": "how many wrong claims are made (1-3)"})
    operand_digits: int = field(default=1, metadata={"help": "digits per operand (1-3)"})
    clause_position: str = field(default="start", metadata={"help": "claims before (start) or after (end) the question"})
    phrasing: str = field(default="symbols", metadata={"help": "how the question is asked: " + ", ".join(PHRASINGS)})
    wording: str = field(default="template", metadata={"help": "how the whole prompt is worded: " + ", ".join(WORDINGS)
                                                        + " (free: composed from many frames)"})
    operands: tuple[int, ...] | None = field(default=None, metadata={"help": "fixed operands instead of random ones"})

    def validate(self) -> "FalseClaimConfig":
        check_distracted_arithmetic(self, FORMS, TEMPLATES)
        return self


def claims_sentence(text: str, claimed: list[int], form: str) -> str:
    said = [f"{NAMES[0]} says that {text} is {claimed[0]}"]
    said += [f"{name} says it is {value}" for name, value in zip(NAMES[1:], claimed[1:])]
    return "; ".join(said) + ". " + FORMS[form][len(claimed) - 1]


def generate(level: str, seed: int, params: dict) -> Task:
    rng = Random(seed)
    config = FalseClaimConfig(level=level, **resolve(rng, LEVEL_TABLE[level], params)).validate()
    shape = SHAPES[config.template]
    operands = config.operands or sample_operands(shape, rng, config.operand_digits)
    expr, text = render(shape, operands)
    claimed = tempting_values(expr, rng, config.distractors)
    claims = claims_sentence(text, claimed, config.negation_form)
    question = sentence(*ask(shape, operands, config.phrasing))
    if config.wording == "free":
        prompt = free_question(NAME, level, seed, config.template, operands, expr, claimed, "claimed", config.clause_position)
    else:
        prompt = f"{claims} {question}" if config.clause_position == "start" else f"{question} {claims}"
    hint = ("The stated results are wrong on purpose: do not copy them or adjust them. "
            f"Evaluate the expression yourself: {shape.words}.")
    metadata = distracted_metadata(config, operands, expr, claimed, WORDED_PARAMS)
    return make_task(NAME, level, seed, params, question=prompt, answer=evaluate(expr), hint=hint,
                     metadata=metadata)


# Small one-digit arithmetic at every level; more (close) wrong claims, placed after the question,
# make it harder. operand_digits and any of TEMPLATES stay available as overrides at any level.
LEVEL_TABLE = {
    "easy": {"template": ("add", "sub", "sum_words"), "negation_form": ("wrong", "false"),
             "distractors": (1,), "operand_digits": (1,), "clause_position": ("start",)},
    "medium": {"template": ("add", "sub", "add3"), "negation_form": tuple(FORMS),
               "distractors": (2,), "operand_digits": (1,), "clause_position": ("start", "end")},
    "hard": {"template": ("add", "sub", "add3"), "negation_form": tuple(FORMS),
             "distractors": (3,), "operand_digits": (1,), "clause_position": ("end",)},
}
TEMPLATES = ("add", "sub", "sum_words", "mul", "add3", "mul_add", "paren_mul", "mixed", "nested")

FAMILY = register(Family(
    name=NAME,
    description="Ignore confidently stated wrong results and compute the expression",
    generate=generate,
    params=WORDED_PARAMS,
    choices=distracted_choices(FORMS, phrased=True, worded=True),
))
