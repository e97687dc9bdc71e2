"""distractor_order_of_ops: "Someone who ignored the order of operations got 20. That is NOT the
right result. What is 2 + 3 × 4?"

The quoted values are what working in the wrong order gives (left to right, dropped parentheses,
right to left); the solver must apply the usual precedence anyway.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from random import Random

from alice_app.tasks._arith import (
    PHRASINGS,
    SHAPES,
    WORDED_PARAMS,
    WORDINGS,
    ask,
    check_distracted_arithmetic,
    distracted_choices,
    distracted_metadata,
    evaluate,
    free_question,
    order_mistakes,
    render,
    sample_operands,
    sentence,
    tempting_pool,
)
from alice_app.tasks._common import join_numbers, make_task, resolve
from alice_app.tasks.registry import Family, register
from alice_app.types import Task

NAME = "distractor_order_of_ops"
PRECEDENCE = " with the usual order of operations"  # said after the question, whatever its phrasing
# The verdict on the quoted results, for one value and for several.
FORMS = {"caps": ("That is NOT the right result.", "Those are NOT the right results."),
         "lower": ("That is not the right result.", "Those are not the right results."),
         "contraction": ("That isn't the right result.", "Those aren't the right results.")}


@dataclass(frozen=True)
class OrderOfOpsConfig:
    level: str = field(default="easy", metadata={"help": "difficulty level; picks the template set"})
    template: str = field(default="mixed", metadata={"help": "expression shape, one of the level's templates"})
    negation_form: str = field(default="caps", metadata={"help": "wording of the verdict: " + ", ".join(FORMS)})
    distractors: int = field(default=1, metadata={"help": "how many wrong-order results are quoted (1-3)"})
    operand_digits: int = field(default=1, metadata={"help": "digits per operand (1-3)"})
    clause_position: str = field(default="start", metadata={"help": "wrong results before (start) or after (end) the question"})
    phrasing: str = field(default="symbols", metadata={"help": "how the question is asked: " + ", ".join(PHRASINGS)})
    wording: str = field(default="template", metadata={"help": "how the whole prompt is worded: " + ", ".join(WORDINGS)
                                                        + " (free: composed from many frames; someone claims the "
                                                          "wrong-order results)"})
    operands: tuple[int, ...] | None = field(default=None, metadata={"help": "fixed operands instead of random ones"})

    def validate(self) -> "OrderOfOpsConfig":
        check_distracted_arithmetic(self, FORMS, TEMPLATES)
        return self


def wrong_order_values(expr: str, rng: Random, count: int) -> list[int]:
    """Wrong-order results first (the point of this family), then other tempting values."""
    chosen = order_mistakes(expr)[:count]
    spare = [v for v in tempting_pool(expr) if v not in chosen]
    return chosen + rng.sample(spare, count - len(chosen))


def generate(level: str, seed: int, params: dict) -> Task:
    rng = Random(seed)
    config = OrderOfOpsConfig(level=level, **resolve(rng, LEVEL_TABLE[level], params)).validate()
    shape = SHAPES[config.template]
    operands = config.operands or sample_operands(shape, rng, config.operand_digits)
    expr, _ = render(shape, operands)
    wrong = wrong_order_values(expr, rng, config.distractors)
    verdict = FORMS[config.negation_form][len(wrong) > 1]
    claim = f"Someone who ignored the order of operations got {join_numbers(wrong)}. {verdict}"
    request, mark = ask(shape, operands, config.phrasing)
    question = sentence(request + PRECEDENCE, mark)
    if config.wording == "free":
        prompt = free_question(NAME, level, seed, config.template, operands, expr, wrong, "claimed",
                               config.clause_position)
    else:
        prompt = f"{claim} {question}" if config.clause_position == "start" else f"{question} {claim}"
    hint = ("Parentheses come first, then multiplication, then addition and subtraction from left to "
            f"right; the quoted results come from the wrong order, so ignore them. Here: {shape.words}.")
    metadata = distracted_metadata(config, operands, expr, wrong, WORDED_PARAMS)
    return make_task(NAME, level, seed, params, question=prompt, answer=evaluate(expr), hint=hint,
                     metadata=metadata)


# Three one-digit operands at every level; more quoted wrong-order results, placed after the
# question, make it harder. operand_digits and any of TEMPLATES stay available as overrides.
LEVEL_TABLE = {
    "easy": {"template": ("mixed", "sub_mul", "mul_add"), "negation_form": ("caps", "lower"),
             "distractors": (1,), "operand_digits": (1,), "clause_position": ("start",)},
    "medium": {"template": ("mixed", "sub_mul", "mul_add"), "negation_form": tuple(FORMS),
               "distractors": (2,), "operand_digits": (1,), "clause_position": ("start", "end")},
    "hard": {"template": ("mixed", "sub_mul", "mul_add"), "negation_form": tuple(FORMS),
             "distractors": (3,), "operand_digits": (1,), "clause_position": ("end",)},
}
TEMPLATES = ("mixed", "sub_mul", "mul_add", "mul_add_mul", "add_mul_sub", "sub_mul_add", "paren_add_mul",
             "nested", "add_mul_mul")

FAMILY = register(Family(
    name=NAME,
    description="Apply the usual order of operations despite quoted wrong-order results",
    generate=generate,
    params=WORDED_PARAMS,
    choices=distracted_choices(FORMS, phrased=True, worded=True),
))
