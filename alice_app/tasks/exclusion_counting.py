"""exclusion_counting: "How many of 3, 8, 5, 10 are NOT even?"

The solver must count the numbers that fail a property; counting the ones that have it (the
complement) is the failure this family hunts. Hard levels combine two properties.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from random import Random
from typing import Callable

from alice_app.tasks._common import (CLAUSE_POSITIONS, check_choice, check_int, check_operands,
                                     digits_range, make_task, resolve)
from alice_app.tasks.registry import Family, register
from alice_app.tasks.wordings import WORDINGS, counting_question, property_words, wording_key
from alice_app.types import Task

NAME = "exclusion_counting"
# How each form negates a property, and how it repeats for a second one.
FORMS = {"caps": ("are NOT", "NOT"), "lower": ("are not", "not"), "contraction": ("aren't", "aren't")}
Property = tuple[str, Callable[[int], bool]]
# How the question is framed, with the NOT-clause before (start) or after (end) the list; the first is
# every level's wording, the others say the same in other words (for the hunt's mutations and
# TrainConfig.rephrase_share). {phrase}: "are NOT even"; {listed}: "3, 8, 5, 10".
PHRASINGS = {
    "how_many": ("Count the numbers that {phrase} in this list: {listed}. How many are there?",
                 "How many of {listed} {phrase}?"),
    "list_given": ("Find all the numbers that {phrase}, then say how many you found. The list: {listed}.",
                   "The list is {listed}. How many of its numbers {phrase}?"),
    "total": ("Of the numbers that {phrase}, how many does the list {listed} hold?",
              "What is the total count of numbers in {listed} that {phrase}?"),
    "say": ("Say how many numbers {phrase} in the list {listed}.", "Count how many of {listed} {phrase}."),
}


# Each property's words in the template wording (a free wording picks others: wordings.PROPERTY_WORDS).
PROPERTY_NAMES = {"even": "even", "odd": "odd", "greater": "greater than {k}", "less": "less than {k}",
                  "multiple": "multiples of {m}", "between": "between {low} and {high} (inclusive)"}


def _properties(template: str, values: list[int], rng: Random,
                names: dict[str, str] = PROPERTY_NAMES) -> tuple[str, list[Property]]:
    """(how the properties combine: "one", "neither" or "both", the properties) for a template; ``names``
    words each property."""
    k = rng.choice(values)
    m = rng.choice((3, 4, 5))
    low, high = sorted(rng.sample(values, 2))
    slots = {"k": k, "m": m, "low": low, "high": high}
    word = {kind: text.format(**slots) for kind, text in names.items()}
    even: Property = (word["even"], lambda x: x % 2 == 0)
    odd: Property = (word["odd"], lambda x: x % 2 == 1)
    greater: Property = (word["greater"], lambda x: x > k)
    less: Property = (word["less"], lambda x: x < k)
    multiple: Property = (word["multiple"], lambda x: x % m == 0)
    between: Property = (word["between"], lambda x: low <= x <= high)
    table = {"not_even": ("one", [even]), "not_odd": ("one", [odd]), "not_greater": ("one", [greater]),
             "not_multiple": ("one", [multiple]), "not_between": ("one", [between]), "not_less": ("one", [less]),
             "neither_even_nor_greater": ("neither", [even, greater]),
             "not_both_odd_and_less": ("both", [odd, less]),
             "neither_multiple_nor_less": ("neither", [multiple, less])}
    return table[template]


def positive_phrase(combine: str, properties: list[Property]) -> str:
    """The property itself, for the control twin: "are even", "are even or greater than 5"."""
    names = [name for name, _ in properties]
    return {"one": f"are {names[0]}", "neither": f"are {names[0]} or {' '.join(names[1:])}",
            "both": f"are both {names[0]} and {names[-1]}"}[combine]


def ask(phrasing: str, position: str, phrase: str, listed: str) -> str:
    """The question: "How many of 3, 8, 5, 10 are NOT even?" (the control twin passes "are even")."""
    start, end = PHRASINGS[phrasing]
    return (start if position == "start" else end).format(phrase=phrase, listed=listed)


def negated_phrase(form: str, combine: str, properties: list[Property]) -> str:
    first, again = FORMS[form]
    names = [name for name, _ in properties]
    if combine == "one":
        return f"{first} {names[0]}"
    if combine == "neither":
        return f"{first} {names[0]} and {again} {names[1]}"
    return f"{first} both {names[0]} and {names[1]}"


@dataclass(frozen=True)
class ExclusionCountingConfig:
    level: str = field(default="easy", metadata={"help": "difficulty level; picks templates and list length"})
    template: str = field(default="not_even", metadata={"help": "property to exclude, one of the level's templates"})
    negation_form: str = field(default="caps", metadata={"help": "wording of the negation: " + ", ".join(FORMS)})
    operand_digits: int = field(default=1, metadata={"help": "digits per listed number (1-3)"})
    clause_position: str = field(default="end", metadata={"help": "NOT-clause before (start) or after (end) the list"})
    phrasing: str = field(default="how_many", metadata={"help": "how the question is framed: " + ", ".join(PHRASINGS)})
    wording: str = field(default="template", metadata={"help": "how the question is worded: " + ", ".join(WORDINGS)
                                                        + " (free: composed from many frames and words)"})
    count: int = field(default=4, metadata={"help": "how many numbers are listed (set by the level)"})
    operands: tuple[int, ...] | None = field(default=None, metadata={"help": "fixed list of numbers (2-12)"})

    def validate(self) -> "ExclusionCountingConfig":
        check_choice("template", self.template, LEVEL_TABLE[self.level]["template"])
        check_choice("negation_form", self.negation_form, tuple(FORMS))
        check_int("operand_digits", self.operand_digits, 1, 3)
        check_choice("clause_position", self.clause_position, CLAUSE_POSITIONS)
        check_choice("phrasing", self.phrasing, tuple(PHRASINGS))
        check_choice("wording", self.wording, WORDINGS)
        if self.operands is not None:
            check_operands(self.operands, None)
            check_int("the number of operands", len(self.operands), 2, 12)
        return self


def generate(level: str, seed: int, params: dict) -> Task:
    rng = Random(seed)
    config = ExclusionCountingConfig(level=level, **resolve(rng, LEVEL_TABLE[level], params)).validate()
    values = list(config.operands or [rng.randint(*digits_range(config.operand_digits)) for _ in range(config.count)])
    key = wording_key(NAME, level, seed)
    free = config.wording == "free"
    combine, properties = _properties(config.template, values, rng, property_words(key) if free else PROPERTY_NAMES)
    has = [all(p(x) for _, p in properties) if combine == "both" else any(p(x) for _, p in properties)
           for x in values]
    answer = has.count(False)
    phrase = negated_phrase(config.negation_form, combine, properties)
    listed = ", ".join(map(str, values))
    positive = positive_phrase(combine, properties)
    question = (counting_question(listed, positive, phrase, key) if free
                else ask(config.phrasing, config.clause_position, phrase, listed))
    hint = ("Go through the list one number at a time, mark each number that has the property, "
            "then count the numbers you did NOT mark.")
    metadata = {"template": config.template, "operands": values, "operator": "count", "distractors": [],
                "counted": [x for x, hit in zip(values, has) if not hit],  # the numbers without the property
                "positive": positive,
                "negated": True, "alternatives": [v for v in dict.fromkeys([len(values) - answer, len(values)])
                                                  if v != answer],
                "params": {"template": config.template, "negation_form": config.negation_form,
                           "operand_digits": config.operand_digits, "clause_position": config.clause_position,
                           "phrasing": config.phrasing, "wording": config.wording}}
    return make_task(NAME, level, seed, params, question=question, answer=answer, hint=hint, metadata=metadata)


LEVEL_TABLE = {
    "easy": {"template": ("not_even", "not_odd", "not_greater"), "negation_form": ("caps",),
             "operand_digits": (1,), "clause_position": ("end",), "count": (4, 5)},
    "medium": {"template": ("not_multiple", "not_between", "not_less"), "negation_form": tuple(FORMS),
               "operand_digits": (1,), "clause_position": ("start", "end"), "count": (6, 7)},
    "hard": {"template": ("neither_even_nor_greater", "not_both_odd_and_less", "neither_multiple_nor_less"),
             "negation_form": tuple(FORMS), "operand_digits": (1,), "clause_position": ("start",),
             "count": (8, 9)},
}

FAMILY = register(Family(
    name=NAME,
    description="Count the listed numbers that do NOT have a property",
    generate=generate,
    params=("template", "negation_form", "operand_digits", "clause_position", "phrasing", "wording", "operands"),
    choices={"negation_form": tuple(FORMS), "operand_digits": (1, 2, 3), "clause_position": CLAUSE_POSITIONS,
             "phrasing": tuple(PHRASINGS), "wording": WORDINGS},
))
