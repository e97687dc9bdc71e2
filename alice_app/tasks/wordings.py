"""Free wordings: a task's question (and its distractor sentence) composed from many frames.

A family's templates word every task the same few ways ("If the result is NOT 14, what is 3 + 4?"),
so a model trained on them can learn where the distractor sits instead of what the question asks.
``compose`` writes the same task (the same numbers, distractors and answer) in one of thousands of
wordings: a question frame for the expression's shape (bare symbols, words, an instruction or a
small story, numbers sometimes spelled out) and, for a deceptive task, a sentence that rules the
distractor values out or has someone claim them, before or after the question. The comparison and
counting families get the same from ``comparison_question`` and ``counting_question``: their question
in one of many frames, with the extreme ("the bigger one") or the property ("divisible by 3") in one
of several words.

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
    """The frame with its slots filled; operands spelled out in a share of the frames without symbols (numbers
    only: the challenger's warm start passes slot names, "{a}", which stay as they are)."""
    spelled = not any(symbol in frame for symbol in _SYMBOLS) and rng.random() < SPELLED_SHARE
    values = [spell(n) if spelled and isinstance(n, int) else str(n) for n in operands]
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


# negated_comparison: frames for "which option {phrase}"; {phrase}: "is not the bigger one" (or the control
# twin's "is the smaller"), {options}: "17 or 23", {both}: "17 and 23".
COMPARISON_FRAMES = (
    "Look at {both}. Which of them {phrase}?",
    "Which value {phrase}: {options}?",
    "Say which {phrase}, {options}.",
    "The choices are {both}. Write down the one which {phrase}.",
    "{both}: which {phrase}?",
    "Find the value which {phrase}; the candidates are {both}.",
    "You are given {both}. Report which {phrase}.",
    "Compare {both}. Which {phrase}?",
    "A quiz asks which {phrase}, {options}. Which option is correct?",
    "Pick out the number which {phrase}. Choices: {options}.",
    "Decide which {phrase} when the candidates are {both}.",
    "Here are some numbers: {both}. Which one of these {phrase}?",
)
# double_negation: (the sentence offering the candidates, the question); {options}: "3 + 4 or 3 × 4",
# {both}: "3 + 4 and 3 × 4".
NEGATION_OFFERS = (
    ("The answer is among {both}.", "Which one is it? Give its value."),
    ("Candidates: {both}.", "State the value that is the answer."),
    ("We are choosing between {both}.", "Report the chosen one's value."),
    ("Exactly one of {both} is the answer.", "Tell me that value."),
    ("Say the outcome is {options}.", "Which is it, as a number?"),
    ("A puzzle's answer is {options}.", "Work out its value."),
    ("Pick the answer from {both}.", "Write the value you picked."),
    ("Consider {both}; only one is meant.", "Compute the meant one."),
)
# One negation each, wrapped around the claim after it ("it is wrong to say that <claim>"): statements that
# something is false, contractions, and verbs that reject a claim.
NEGATORS = ("it is wrong to say that", "it would be a mistake to claim that", "it is incorrect that",
            "it is a falsehood that", "nobody could truthfully say that", "it is not so that",
            "it isn't true that", "it doesn't hold that", "we reject the idea that", "don't believe that",
            "you can't say that", "there's no truth in saying that")
# The innermost claim: one negation that rules {named} out, or (a control twin, no negation) names it.
RULED_OUT_CLAIMS = ("{named} isn't it", "the answer differs from {named}", "the answer isn't {named}",
                    "{named} is the wrong one", "the answer can't be {named}", "{named} doesn't fit")
AFFIRMED_CLAIMS = ("{named} is the answer", "the answer equals {named}", "the right one is {named}",
                   "{named} is the one meant")
# The extremes a comparison names (negated_comparison.TEMPLATES), each in several words.
EXTREME_WORDS = {
    "the larger": ("the bigger one", "the larger one", "the higher value", "the larger number"),
    "the smaller": ("the lesser one", "the littler value", "the tinier one"),
    "greater than the other": ("greater than the other", "bigger than the other one", "above the other value"),
    "the largest": ("the largest", "the biggest", "the greatest"),
    "the smallest": ("the smallest", "the least", "the tiniest"),
    "one of the two largest": ("one of the two largest", "among the top two", "one of the biggest two"),
}
# exclusion_counting: (frame for the task, frame for its control twin); {listed}: "3, 8, 5, 10",
# {negated}: "are not even", {positive}: "are even". The last frames leave the negation implicit: strike
# out the numbers that have the property, count what stays.
COUNTING_FRAMES = (
    ("Here is a list: {listed}. How many numbers in it {negated}?",
     "Here is a list: {listed}. How many numbers in it {positive}?"),
    ("{listed}. Of these, how many {negated}?", "{listed}. Of these, how many {positive}?"),
    ("Count the entries of {listed} which {negated}.", "Count the entries of {listed} which {positive}."),
    ("Go through {listed} and count the numbers which {negated}.",
     "Go through {listed} and count the numbers which {positive}."),
    ("How many values in {listed} {negated}?", "How many values in {listed} {positive}?"),
    ("Give the count of numbers which {negated} in this list: {listed}.",
     "Give the count of numbers which {positive} in this list: {listed}."),
    ("We have {listed}. Find the amount of entries which {negated}.",
     "We have {listed}. Find the amount of entries which {positive}."),
    ("From the list {listed}, cross out the numbers which {positive}. How many numbers stay?",
     "From the list {listed}, circle the numbers which {positive}. How many get circled?"),
    ("Take the numbers {listed} and drop those which {positive}. How many do you keep?",
     "Take the numbers {listed} and keep only those which {positive}. How many do you keep?"),
)
# The properties a count names (exclusion_counting.PROPERTY_NAMES), each in several words; {k}, {m},
# {low}, {high}: the numbers the task drew.
PROPERTY_WORDS = {
    "even": ("even", "even numbers", "divisible by 2"),
    "odd": ("odd", "odd numbers"),
    "greater": ("greater than {k}", "more than {k}", "larger than {k}", "over {k}"),
    "less": ("smaller than {k}", "below {k}", "under {k}", "lower than {k}"),
    "multiple": ("divisible by {m}", "in the {m} times table", "evenly divisible by {m}"),
    "between": ("between {low} and {high} (inclusive)", "from {low} to {high}, both included",
                "in the span {low} to {high} inclusive"),
}


def _pick(options: Sequence, key: str, part: str):
    """One of ``options``, fixed by the task's wording ``key`` and what is being picked (``part``)."""
    return Random(f"wording/{key}/{part}").choice(options)


def extreme_words(extreme: str, key: str) -> str:
    """``extreme`` ("the larger") in one of its words ("the bigger one")."""
    return _pick(EXTREME_WORDS[extreme], key, extreme)


def property_words(key: str) -> dict[str, str]:
    """Each property's words for the task with wording ``key`` (format strings with the slots of PROPERTY_WORDS)."""
    return {name: _pick(words, key, name) for name, words in PROPERTY_WORDS.items()}


def comparison_question(texts: Sequence[str], phrase: str, key: str) -> str:
    """"Which of ``texts`` ``phrase``?" in the frame ``key`` picks (a control twin passes the family task's key)."""
    frame = _pick(COMPARISON_FRAMES, key, "frame")
    question = frame.format(phrase=phrase, options=join_numbers(texts, "or"), both=join_numbers(texts))
    return question[:1].upper() + question[1:]


def counting_question(listed: str, positive: str, negated: str | None, key: str) -> str:
    """How many of ``listed`` ``negated`` (or, with ``negated`` None, the control twin's ``positive``)."""
    task_frame, twin_frame = _pick(COUNTING_FRAMES, key, "frame")
    frame = twin_frame if negated is None else task_frame
    question = frame.format(listed=listed, positive=positive, negated=negated)
    return question[:1].upper() + question[1:]


def negation_question(texts: Sequence[str], named: str, depth: int, key: str) -> str:
    """The candidates ``texts`` offered and a claim about ``named`` under ``depth`` negations (0: the control
    twin's plain claim), before or after the offer, then the question; all in the frames ``key`` picks."""
    offer, ask = _pick(NEGATION_OFFERS, key, "frame")
    claims = AFFIRMED_CLAIMS if depth == 0 else RULED_OUT_CLAIMS
    claim = _pick(claims, key, "claim").format(named=named)
    for level in range(depth - 1):
        claim = f"{_pick(NEGATORS, key, f'negator/{level}')} {claim}"
    claim = f"{claim[:1].upper()}{claim[1:]}."
    offered = offer.format(options=join_numbers(texts, "or"), both=join_numbers(texts))
    parts = [claim, offered] if _pick(("start", "end"), key, "position") == "start" else [offered, claim]
    return " ".join([*parts, ask])
