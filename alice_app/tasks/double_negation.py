"""double_negation: "The answer is either 3 + 4 or 3 × 4. It is not true that the answer is not
3 + 4. What is the answer?"

Negations stack: an even number of them names the answer, an odd number rules the named candidate
out. The count's parity follows the seed (odd seeds an odd count, even seeds an even one), so any run of
consecutive seeds, such as a held-out cell, is half one and half the other and answering the named candidate
scores exactly half: easy has one or two negations ("The answer is not 8." or the example above), medium two
or three, hard three or four. Three candidates (``three_way``) take an even count only (ruling one out would
leave two); a template or count given by hand is kept even where it breaks the alternation. Each
level also offers two plain numbers (``numbers``, ``deep_numbers``, ``deeper_numbers``), so its depth of
negation is asked with no arithmetic at all.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from random import Random

from alice_app.tasks._arith import SHAPES, evaluate, render, sample_operands
from alice_app.tasks._common import CLAUSE_POSITIONS, check_choice, check_int, join_numbers, make_task, resolve
from alice_app.tasks.registry import Family, register
from alice_app.tasks.wordings import WORDINGS, negation_question, wording_key
from alice_app.types import Task

NAME = "double_negation"
FORMS = {"not_true": "it is not true that", "not_case": "it is not the case that", "false": "it is false that"}
# template -> (candidate shapes, sharing the same operands when "shared", the negation counts drawn from)
TEMPLATES = {
    "numbers": ((None, None), False, (1, 2)),
    "deep_numbers": ((None, None), False, (2, 3)),
    "deeper_numbers": ((None, None), False, (3, 4)),
    "sum_or_diff": (("add", "sub"), True, (1, 2)),
    "two_sums": (("add", "add"), False, (1, 2)),
    "sum_or_product": (("add", "mul"), True, (2, 3)),
    "three_way": (("add", "sub", "mul"), True, (2,)),
    "product_or_diff": (("mul", "sub"), True, (2, 3)),
    "triple": (("mul", "add"), True, (3,)),
    "quadruple": (("add", "mul"), True, (4,)),
    "triple_paren": (("paren_mul", "mixed"), True, (3,)),
}
MAX_NEGATIONS = 4
# How the candidates are offered and the question asked (the negation sentence is the same in all);
# the first is every level's wording, the others say the same in other words (for the hunt's
# mutations and TrainConfig.rephrase_share). {n}: how many; {options}: "3 + 4 or 3 × 4"; {both}: "… and …".
PHRASINGS = {
    "one_of": ("The answer is one of {n} values: {options}.", "What is the answer? Give its value."),
    "candidates": ("There are {n} candidates: {both}.", "Give the value of the candidate that is the answer."),
    "must_be": ("The answer must be {options}.", "Work out which, and give its value."),
    "possible": ("Possible answers: {options}.", "What is the value of the answer?"),
}


@dataclass(frozen=True)
class DoubleNegationConfig:
    level: str = field(default="easy", metadata={"help": "difficulty level; picks the template set"})
    template: str = field(default="numbers", metadata={"help": "candidates and negation depth, one of the level's templates"})
    negation_form: str = field(default="not_true", metadata={"help": "the outer negation: " + ", ".join(FORMS)})
    operand_digits: int = field(default=1, metadata={"help": "digits per operand (1-3)"})
    clause_position: str = field(default="end", metadata={"help": "negation before (start) or after (end) the candidates"})
    negations: int = field(default=0, metadata={"help": f"how many negations stack (1-{MAX_NEGATIONS}; odd rules the "
                                                "named candidate out); 0 = drawn from the template's counts"})
    phrasing: str = field(default="one_of", metadata={"help": "how the candidates are offered: " + ", ".join(PHRASINGS)})
    wording: str = field(default="template", metadata={"help": "how the question is worded: " + ", ".join(WORDINGS)
                                                       + " (free: composed from many frames)"})

    def validate(self) -> "DoubleNegationConfig":
        check_choice("template", self.template, LEVEL_TABLE[self.level]["template"])
        check_choice("negation_form", self.negation_form, tuple(FORMS))
        check_int("operand_digits", self.operand_digits, 1, 3)
        check_choice("clause_position", self.clause_position, CLAUSE_POSITIONS)
        check_int("negations", self.negations, 0, MAX_NEGATIONS)
        if self.negations % 2 and len(TEMPLATES[self.template][0]) != 2:
            raise ValueError(f"template {self.template} offers {len(TEMPLATES[self.template][0])} candidates: "
                             f"an odd number of negations would leave more than one; got negations={self.negations}")
        check_choice("phrasing", self.phrasing, tuple(PHRASINGS))
        check_choice("wording", self.wording, WORDINGS)
        return self


def candidates(template: str, rng: Random, digits: int) -> tuple[list[str], list[int]]:
    """Candidate texts and the operands behind them; redrawn until their values differ."""
    shapes, shared, _ = TEMPLATES[template]
    for _ in range(100):
        if shapes[0] is None:
            texts = [str(v) for v in sample_operands(SHAPES["add"], rng, digits)]
            operands = [int(t) for t in texts]
        else:
            first = sample_operands(SHAPES[shapes[0]], rng, digits)
            draws = [first if shared else sample_operands(SHAPES[s], rng, digits) for s in shapes]
            texts = [render(SHAPES[s], d[: SHAPES[s].arity])[0] for s, d in zip(shapes, draws)]
            operands = [n for d in dict.fromkeys(draws) for n in d]
        if len({evaluate(t) for t in texts}) == len(texts):
            return texts, operands
    raise RuntimeError(f"could not draw distinct candidates for {template}")  # practically unreachable


def offer(phrasing: str, texts: list[str]) -> tuple[str, str]:
    """(the sentence offering the candidates, the question), e.g. ("The answer is one of 2 values: 3 + 4
    or 3 × 4.", "What is the answer? Give its value.")."""
    choice, question = PHRASINGS[phrasing]
    return choice.format(n=len(texts), options=join_numbers(texts, "or"), both=join_numbers(texts)), question


def negation_sentence(form: str, depth: int, named: str) -> str:
    """``depth`` negations about ``named``: ``depth - 1`` of ``form`` around "the answer is not <named>."."""
    sentence = " ".join([*[FORMS[form]] * (depth - 1), f"the answer is not {named}."])
    return sentence[0].upper() + sentence[1:]


def with_parity(counts: tuple[int, ...], parity: int) -> tuple[int, ...]:
    """The negation counts of ``counts`` whose parity is ``parity`` (1: odd)."""
    return tuple(count for count in counts if count % 2 == parity)


def generate(level: str, seed: int, params: dict) -> Task:
    rng = Random(seed)
    parity = seed % 2  # consecutive seeds alternate, so a held-out cell is half odd, half even
    options = {**LEVEL_TABLE[level], "template": tuple(
        name for name in LEVEL_TABLE[level]["template"] if with_parity(TEMPLATES[name][2], parity))}
    config = DoubleNegationConfig(level=level, **resolve(rng, options, params)).validate()
    texts, operands = candidates(config.template, rng, config.operand_digits)
    named = rng.randrange(len(texts))
    counts = TEMPLATES[config.template][2]
    # all its counts where a template given by hand offers none of the seed's parity (three_way on an odd seed)
    depth = config.negations or rng.choice(with_parity(counts, parity) or counts)
    values = [evaluate(t) for t in texts]
    # Even depth: the negations cancel and the named candidate is the answer. Odd: it is ruled
    # out, and with two candidates the other one remains.
    answer = values[named] if depth % 2 == 0 else values[1 - named]
    if config.wording == "free":
        question = negation_question(texts, texts[named], depth, wording_key(NAME, level, seed))
    else:
        choice, ask = offer(config.phrasing, texts)
        negation = negation_sentence(config.negation_form, depth, texts[named])
        parts = [negation, choice] if config.clause_position == "start" else [choice, negation]
        question = " ".join([*parts, ask])
    hint = ("Count the negations. An even number of them cancels out and confirms the named value; an "
            "odd number rules it out. Then evaluate the candidate that remains.")
    metadata = {"template": config.template, "operands": operands, "operator": texts[named],
                "candidates": texts, "named": texts[named], "negation_depth": depth, "distractors": [],
                "negated": True, "alternatives": [v for v in values if v != answer],
                "params": {"template": config.template, "negation_form": config.negation_form,
                           "operand_digits": config.operand_digits, "clause_position": config.clause_position,
                           "negations": depth, "phrasing": config.phrasing, "wording": config.wording}}
    return make_task(NAME, level, seed, params, question=question, answer=answer, hint=hint, metadata=metadata)


LEVEL_TABLE = {
    "easy": {"template": ("numbers", "sum_or_diff", "two_sums"), "negation_form": ("not_true",),
             "operand_digits": (1,), "clause_position": ("end",)},
    "medium": {"template": ("sum_or_product", "three_way", "product_or_diff", "deep_numbers"),
               "negation_form": tuple(FORMS),
               "operand_digits": (1,), "clause_position": ("start", "end")},
    "hard": {"template": ("triple", "quadruple", "triple_paren", "deeper_numbers"), "negation_form": tuple(FORMS),
             "operand_digits": (1,), "clause_position": ("start", "end")},
}

FAMILY = register(Family(
    name=NAME,
    description="Resolve stacked negations to find which candidate value is meant",
    generate=generate,
    params=("template", "negation_form", "operand_digits", "clause_position", "negations", "phrasing", "wording"),
    choices={"negation_form": tuple(FORMS), "operand_digits": (1, 2, 3), "clause_position": CLAUSE_POSITIONS,
             "phrasing": tuple(PHRASINGS), "wording": WORDINGS},
))
