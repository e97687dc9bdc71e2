"""negated_comparison: "Which is NOT the larger: 17 or 23?"

The solver must find the extreme and then give a value that is NOT it; answering the extreme
itself (the complement) is the failure this family hunts.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from random import Random

from alice_app.tasks._arith import SHAPES, evaluate, render, sample_operands
from alice_app.tasks._common import (CLAUSE_POSITIONS, check_choice, check_int, check_operands,
                                     digits_range, join_numbers, make_task, resolve)
from alice_app.tasks.registry import Family, register
from alice_app.tasks.wordings import WORDINGS, comparison_question, extreme_words, wording_key
from alice_app.types import Task

NAME = "negated_comparison"
FORMS = {"caps": "is NOT", "lower": "is not", "contraction": "isn't"}
# template -> (negated properties, how to pick the answer from the sorted values, option count)
TEMPLATES = {
    "not_larger": (("the larger",), lambda v: v[0], 2),
    "not_smaller": (("the smaller",), lambda v: v[-1], 2),
    "not_greater": (("greater than the other",), lambda v: v[0], 2),
    "middle": (("the largest", "the smallest"), lambda v: v[1], 3),
    "swap_not_larger": (("the larger",), lambda v: v[0], 2),
    "swap_not_smaller": (("the smaller",), lambda v: v[-1], 2),
    "expr_not_larger": (("the larger",), lambda v: v[0], 2),
    "expr_not_smaller": (("the smaller",), lambda v: v[-1], 2),
    "second_smallest": (("the smallest", "one of the two largest"), lambda v: v[1], 4),
}
# The extremes TEMPLATES name: which of the sorted values each one is, and how a worked solution says so
# ("93 is the larger"; tasks/solutions.py).
EXTREMES = {"the larger": (lambda v: v[-1:], "is the larger"), "the largest": (lambda v: v[-1:], "is the largest"),
            "greater than the other": (lambda v: v[-1:], "is greater than the other"),
            "the smaller": (lambda v: v[:1], "is the smaller"), "the smallest": (lambda v: v[:1], "is the smallest"),
            "one of the two largest": (lambda v: v[-2:], "are the two largest")}
EXPR_SHAPES = ("add", "sub", "mul")
# How the question is framed, with the NOT-clause before (start) or after (end) the options; the first is
# every level's wording, the others say the same in other words (for the hunt's mutations and
# TrainConfig.rephrase_share). {phrase}: "is NOT the larger"; {options}: "17 or 23"; {both}: "17 and 23".
PHRASINGS = {
    "which": ("Which {phrase}: {options}?", "Of {both}, which {phrase}?"),
    "choose": ("Choose the one that {phrase}: {options}.", "Of {both}, choose the one that {phrase}."),
    "tell": ("Tell me which {phrase}: {options}.", "Here are {both}. Tell me which {phrase}."),
    "options": ("Find the one that {phrase} among {both}.", "The options are {both}. Which of them {phrase}?"),
}


@dataclass(frozen=True)
class NegatedComparisonConfig:
    level: str = field(default="easy", metadata={"help": "difficulty level; picks the template set"})
    template: str = field(default="not_larger", metadata={"help": "comparison asked, one of the level's templates"})
    negation_form: str = field(default="caps", metadata={"help": "wording of the negation: " + ", ".join(FORMS)})
    operand_digits: int = field(default=2, metadata={"help": "digits per number (1-3)"})
    clause_position: str = field(default="start", metadata={"help": "NOT-clause before (start) or after (end) the options"})
    phrasing: str = field(default="which", metadata={"help": "how the question is framed: " + ", ".join(PHRASINGS)})
    wording: str = field(default="template", metadata={"help": "how the question is worded: " + ", ".join(WORDINGS)
                                                        + " (free: composed from many frames and words)"})
    operands: tuple[int, ...] | None = field(default=None, metadata={"help": "fixed numbers (expression templates: four operands)"})

    def validate(self) -> "NegatedComparisonConfig":
        check_choice("template", self.template, LEVEL_TABLE[self.level]["template"])
        check_choice("negation_form", self.negation_form, tuple(FORMS))
        check_int("operand_digits", self.operand_digits, 1, 3)
        check_choice("clause_position", self.clause_position, CLAUSE_POSITIONS)
        check_choice("phrasing", self.phrasing, tuple(PHRASINGS))
        check_choice("wording", self.wording, WORDINGS)
        if self.operands is not None:
            count = 4 if self.template.startswith("expr") else TEMPLATES[self.template][2]
            check_operands(self.operands, count)
        return self


def ask(phrasing: str, position: str, phrase: str, texts: list[str]) -> str:
    """The question: "Which is NOT the larger: 17 or 23?" (the control twin passes "is the smaller")."""
    start, end = PHRASINGS[phrasing]
    frame = start if position == "start" else end
    return frame.format(phrase=phrase, options=join_numbers(texts, "or"), both=join_numbers(texts))


def distinct_numbers(rng: Random, count: int, digits: int) -> list[int]:
    low, high = digits_range(max(digits, 2 if count > 4 else 1))
    return rng.sample(range(low, high + 1), count)


def reversed_pair(rng: Random, digits: int) -> list[int]:
    """Two numbers whose digits are reversed (47 and 74): close enough to tempt a wrong pick."""
    if digits == 1:
        return distinct_numbers(rng, 2, 1)
    while True:
        number = rng.randint(*digits_range(digits))
        text = str(number)
        if text[0] != text[-1] and text[-1] != "0":
            return [number, int(text[::-1])]


def expression_options(rng: Random, operands: tuple[int, ...] | None, digits: int) -> tuple[list[str], tuple[int, ...]]:
    shapes = [SHAPES[rng.choice(EXPR_SHAPES)] for _ in range(2)]
    numbers = operands or sample_operands(shapes[0], rng, digits) + sample_operands(shapes[1], rng, digits)
    return [render(shapes[0], numbers[:2])[0], render(shapes[1], numbers[2:])[0]], tuple(numbers)


def options_for(config: NegatedComparisonConfig, rng: Random) -> tuple[list[str], list[int], tuple[int, ...]]:
    """(option texts, option values, operands)."""
    if config.template.startswith("expr"):
        texts, numbers = expression_options(rng, config.operands, config.operand_digits)
        return texts, [evaluate(t) for t in texts], numbers
    if config.operands is not None:
        values = list(config.operands)
    elif config.template.startswith("swap"):
        values = reversed_pair(rng, config.operand_digits)
    else:
        values = distinct_numbers(rng, TEMPLATES[config.template][2], config.operand_digits)
    return [str(v) for v in values], values, tuple(values)


def generate(level: str, seed: int, params: dict) -> Task:
    rng = Random(seed)
    config = NegatedComparisonConfig(level=level, **resolve(rng, LEVEL_TABLE[level], params)).validate()
    for _ in range(100):  # redraw until the values differ, so exactly one option qualifies
        texts, values, operands = options_for(config, rng)
        if len(set(values)) == len(values) or config.operands is not None:
            break
    if len(set(values)) != len(values):
        raise ValueError(f"the options must have different values; got {values}")
    properties, pick, _ = TEMPLATES[config.template]
    if config.wording == "free":
        key = wording_key(NAME, level, seed)
        phrase = " and ".join(f"{FORMS[config.negation_form]} {extreme_words(p, key)}" for p in properties)
        question = comparison_question(texts, phrase, key)
    else:
        phrase = " and ".join(f"{FORMS[config.negation_form]} {p}" for p in properties)
        question = ask(config.phrasing, config.clause_position, phrase, texts)
    if config.template.startswith("expr"):
        question += " Give its value."
    answer = pick(sorted(values))
    hint = ("First find the option the comparison names (the extreme), then rule it out: the question "
            "asks for an option that does NOT have that property.")
    metadata = {"template": config.template, "operands": list(operands), "operator": "compare",
                "options": texts, "values": values, "distractors": [], "negated": True,
                "alternatives": [v for v in values if v != answer],
                "params": {"template": config.template, "negation_form": config.negation_form,
                           "operand_digits": config.operand_digits, "clause_position": config.clause_position,
                           "phrasing": config.phrasing, "wording": config.wording}}
    return make_task(NAME, level, seed, params, question=question, answer=answer, hint=hint, metadata=metadata)


LEVEL_TABLE = {
    "easy": {"template": ("not_larger", "not_smaller", "not_greater"), "negation_form": ("caps",),
             "operand_digits": (1, 2), "clause_position": ("start",)},
    "medium": {"template": ("middle", "swap_not_larger", "swap_not_smaller"), "negation_form": tuple(FORMS),
               "operand_digits": (2,), "clause_position": ("start", "end")},
    "hard": {"template": ("expr_not_larger", "expr_not_smaller", "second_smallest"),
             "negation_form": tuple(FORMS), "operand_digits": (2,), "clause_position": ("end",)},
}

FAMILY = register(Family(
    name=NAME,
    description="Pick the option that does NOT have the named extreme",
    generate=generate,
    params=("template", "negation_form", "operand_digits", "clause_position", "phrasing", "wording", "operands"),
    choices={"negation_form": tuple(FORMS), "operand_digits": (1, 2, 3), "clause_position": CLAUSE_POSITIONS,
             "phrasing": tuple(PHRASINGS), "wording": WORDINGS},
))
