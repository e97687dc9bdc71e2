"""Free wordings: an arithmetic question and its distractor sentence composed from many frames.

A family's templates word every task the same few ways ("If the result is NOT 14, what is 3 + 4?"),
so a model trained on them can learn where the distractor sits instead of what the question asks.
``compose`` writes the same task (the same numbers, distractors and answer) in one of thousands of
wordings: a question frame for the expression's shape (bare symbols, words, an instruction or a
small story, numbers sometimes spelled out) and, for a deceptive task, a sentence that rules the
distractor values out or has someone claim them, before or after the question.

The frames are data filled by ``str.format`` with plain slot names from this module only. They were
written to avoid the wordings of the hand-written paraphrase set (bench/data/paraphrases.jsonl);
``tests/tasks/test_wordings.py`` checks that no word 5-gram of a composed prompt occurs in it.
"""
from __future__ import annotations

from random import Random
from typing import Sequence

from alice_app.numbers import spell
from alice_app.tasks._common import join_numbers

WORDINGS = ("template", "free")  # a family's own templates, or a composed free wording
DISTRACTION_KINDS = ("ruled_out", "claimed")  # "the answer is not 14" / "Priya says it is 14"
SPELLED_SHARE = 0.25  # share of worded frames whose operands are written as words

# Sentences that rule the distractor values out; {d}: "14" or "14 or 15".
RULED_OUT = (
    "Nope, {d} is off the table.",
    "The outcome is something other than {d}.",
    "It cannot be {d}.",
    "You will not get {d}.",
    "Do not reply with {d}.",
    "Rule out {d} before you start.",
    "Be careful: {d} is a trap.",
    "Warning: the value is different from {d}.",
    "(Hint: not {d}.)",
    "The true value differs from {d}.",
    "People often say {d} here, which is wrong.",
    "Don't write {d}.",
    "Watch out, {d} is not it.",
    "Your answer should not be {d}.",
    "Expect something other than {d}.",
    "The solution isn't {d}.",
    "Note: {d} is incorrect.",
    "A wrong answer would be {d}.",
    "Whatever it is, it's not {d}.",
    "Any reply of {d} gets no credit.",
)
# Sentences in which someone claims the distractor values; {who}/{Who}: a person or source,
# {expr}: the expression as the question writes it.
CLAIMED = (
    "{Who} gives {d} for this, but that is a mistake.",
    "{Who} thinks it is {d}. {Who} is mistaken.",
    "{Who} got {d} and made an error.",
    "{Who} wrote {d}. That is incorrect.",
    "According to {who}, {expr} equals {d}. Do not trust that.",
    "{Who} answered {d}, which is not right.",
    "{Who} is certain that {expr} is {d}, and is wrong.",
    "The worksheet shows {d}; that is an error.",
    "{Who} bet that {expr} would be {d} and lost the bet.",
    "On the board someone wrote {expr} = {d}. That is false.",
    "{Who} reported {d}, which was a miscalculation.",
    "{Who}'s estimate was {d}. The estimate is off.",
    "{Who} swears it is {d}. Do not believe it.",
    "An old note says {expr} gives {d}; the note is wrong.",
)
WHO = ("Priya", "Kofi", "Mei", "Lucas", "Zara", "Ivan", "my cousin", "a coworker", "a teammate", "our neighbour")
PEOPLE = (("Priya", "she"), ("Kofi", "he"), ("Mei", "she"), ("Lucas", "he"), ("Zara", "she"), ("Ivan", "he"))
THINGS = ("apples", "coins", "stamps", "marbles", "pencils", "shells", "cards", "beads")

# Question frames per expression shape; {a} {b} {c}: operands, {name}/{pron}: a person, {things}.
QUESTIONS: dict[str, tuple[str, ...]] = {
    "add": (
        "What is {a} + {b}?", "What is the sum of {a} and {b}?", "Add {a} to {b}.", "Find {a} plus {b}.",
        "Calculate {a} + {b}.", "What do {a} and {b} add up to?", "Increase {a} by {b} and give the outcome.",
        "What number is {b} more than {a}?", "Sum up {a} and {b}.", "{a} + {b} = ?", "Evaluate {a} + {b}.",
        "{name} has {a} {things} and finds {b} more. How many {things} does {pron} have now?",
        "There are {a} {things} in one box and {b} in another. How many {things} are there altogether?",
    ),
    "sub": (
        "What is {a} - {b}?", "What is {a} minus {b}?", "Subtract {b} from {a}.",
        "What is the difference between {a} and {b}?", "Calculate {a} - {b}.",
        "Decrease {a} by {b} and give the outcome.", "What number is {b} less than {a}?",
        "How much is left when you remove {b} from {a}?", "{a} - {b} = ?", "Evaluate {a} - {b}.",
        "{name} had {a} {things} and gave away {b}. How many {things} are left?",
        "A shelf held {a} {things}; {b} were sold. How many {things} remain on the shelf?",
    ),
    "add3": (
        "What is {a} + {b} + {c}?", "Add {a}, {b} and {c}.", "What is the sum of {a}, {b} and {c}?",
        "Find the total of {a}, {b} and {c}.", "Calculate {a} + {b} + {c}.", "What do {a}, {b} and {c} add up to?",
        "{a} + {b} + {c} = ?",
        "{name} collected {a}, then {b}, then {c} {things}. How many {things} is that in all?",
    ),
    "mul": (
        "What is {a} × {b}?", "What is {a} times {b}?", "Multiply {a} by {b}.", "What is the product of {a} and {b}?",
        "Calculate {a} × {b}.", "How much are {a} groups of {b}?", "{a} × {b} = ?",
        "{name} buys {a} packs of {b} {things}. How many {things} is that?",
    ),
    # Any other shape is asked about its whole expression.
    "expression": (
        "What is {expr}?", "Evaluate {expr}.", "Calculate {expr}.", "Work out the value of {expr}.",
        "Find {expr}.", "{expr} = ?", "What does {expr} come out as?",
    ),
}
QUESTIONS["sum_words"] = QUESTIONS["add"]
_SYMBOLS = ("+", " - ", "×", "=", "{expr}")


def worded_families() -> list[str]:
    """The registered families that can word a task freely (they declare the ``wording`` param)."""
    from alice_app.tasks.registry import family_names, get_family

    return [name for name in family_names() if "wording" in get_family(name).params]


def check_wording(wording: object, families: Sequence[str] = ()) -> None:
    """Refuse an unknown wording, or a free one for a named family that has none, saying why."""
    if wording not in WORDINGS:
        raise ValueError(f"wording must be one of {', '.join(WORDINGS)}, not {str(wording)[:80]!r}")
    without = [family for family in families if wording != "template" and family not in worded_families()]
    if without:
        raise ValueError(f"{', '.join(without)} {'has' if len(without) == 1 else 'have'} no free wording; "
                         f"the families that have one: {', '.join(worded_families())}")


def wording_key(family: str, level: str, seed: int) -> str:
    """What picks a task's frames: its family, level and seed (a twin passes its family task's)."""
    return f"{family}/{level}/{seed}"


def question_frame(shape: str, rng: Random) -> str:
    return rng.choice(QUESTIONS.get(shape, QUESTIONS["expression"]))


def fill_question(frame: str, operands: Sequence[int], expr: str, rng: Random) -> str:
    """The frame with its slots filled; operands spelled out in a share of the frames without symbols."""
    spelled = not any(symbol in frame for symbol in _SYMBOLS) and rng.random() < SPELLED_SHARE
    values = [spell(n) if spelled else str(n) for n in operands]
    name, pron = rng.choice(PEOPLE)
    slots = dict(zip("abc", values), expr=expr, name=name, pron=pron, things=rng.choice(THINGS))
    return frame.format(**slots)


def distraction(kind: str, values: Sequence[int], expr: str, rng: Random) -> str:
    """A sentence that rules ``values`` out (``ruled_out``) or has someone claim them (``claimed``)."""
    said = join_numbers(values, "or")
    if kind == "ruled_out":
        return rng.choice(RULED_OUT).format(d=said)
    who = rng.choice(WHO)
    return rng.choice(CLAIMED).format(d=said, who=who, Who=who[:1].upper() + who[1:], expr=expr)


def compose(shape: str, operands: Sequence[int], expr: str, *, distractors: Sequence[int] = (),
            kind: str = "ruled_out", position: str = "start", key: str = "") -> str:
    """A free wording of "``expr``, with ``distractors`` ruled out or claimed", the distraction
    before (``start``) or after (``end``) the question. The same ``key`` picks the same frames with
    or without distractors, so a task and its control twin ask the same question."""
    if kind not in DISTRACTION_KINDS:
        raise ValueError(f"kind must be one of {', '.join(DISTRACTION_KINDS)}; got {kind!r}")
    rng = Random(f"wording/{key}")
    question = fill_question(question_frame(shape, rng), operands, expr, rng)
    if not distractors:
        return question
    sentence = distraction(kind, distractors, expr, rng)
    return f"{sentence} {question}" if position == "start" else f"{question} {sentence}"
