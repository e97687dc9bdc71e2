import re

import pytest

from alice_app.numbers import spell
from alice_app.tasks import generate_task
from alice_app.tasks._common import ANSWER_FORMAT
from alice_app.tasks.registry import control_of
from alice_app.tasks.wordings import compose
from bench.paraphrases import PARITY_PATH, load_paraphrases, shared_ngrams

FREE_FAMILIES = ("negation_arithmetic", "false_claim", "distractor_order_of_ops")
LEVELS = ("easy", "medium", "hard")


def question(task) -> str:
    return task.prompt.split("\n")[0]


def free_tasks(families=FREE_FAMILIES, seeds=range(200)):
    return [(generate_task(f, level, seed), generate_task(f, level, seed, wording="free"))
            for f in families for level in LEVELS for seed in seeds]


def test_a_free_wording_asks_the_same_task_with_the_same_numbers_and_answer():
    for template, free in free_tasks():
        assert free.answer == template.answer
        for key in ("operands", "distractors", "expression"):
            assert free.metadata[key] == template.metadata[key]
        assert free.prompt != template.prompt and free.prompt.endswith(ANSWER_FORMAT)
        text = question(free)
        assert all(re.search(rf"(?<!\d){d}(?!\d)", text) for d in free.metadata["distractors"]), text
        assert all(str(n) in text or spell(n) in text for n in free.metadata["operands"]), text


def test_the_free_wording_is_deterministic_and_the_default_stays_the_template():
    for family in (*FREE_FAMILIES, "plain_arithmetic"):
        assert generate_task(family, "medium", 7, wording="free") == generate_task(family, "medium", 7, wording="free")
        assert generate_task(family, "medium", 7, wording="template").prompt == generate_task(family, "medium", 7).prompt


def test_a_free_tasks_control_twin_asks_its_question_without_the_distraction():
    for _, free in free_tasks(seeds=range(60)):
        twin = control_of(free)
        assert twin.answer == free.answer
        assert question(twin) in question(free) and len(question(twin)) < len(question(free))
    plain = generate_task("plain_arithmetic", "easy", 3, wording="free")
    assert question(plain) == question(control_of(generate_task("negation_arithmetic", "easy", 3, wording="free")))


CHOICE_FAMILIES = ("negated_comparison", "exclusion_counting")


def test_the_comparison_and_counting_families_word_the_same_task_freely_and_their_twins_follow():
    shapes = set()
    for template, free in free_tasks(CHOICE_FAMILIES, seeds=range(60)):
        assert free.answer == template.answer and free.metadata["operands"] == template.metadata["operands"]
        text, twin = question(free), control_of(free)
        assert free.prompt != template.prompt and all(str(n) in text for n in free.metadata["operands"]), text
        assert twin.answer == control_of(template).answer and question(twin) != text
        assert re.search(r"\bnot\b|n't|drop|cross out", text, re.IGNORECASE), text  # the task keeps its negation
        assert not re.search(r"\bnot\b|n't", question(twin), re.IGNORECASE), question(twin)
        shapes.add(re.sub(r"\d+", "#", text))
    assert len(shapes) >= 200  # 360 prompts from 12 + 9 frames and the words of each extreme and property
    worded = generate_task("exclusion_counting", "easy", 1, template="not_odd", operands=(7, 5, 8, 6, 4), wording="free")
    assert question(worded) == "Take the numbers 7, 5, 8, 6, 4 and drop those which are odd numbers. How many do you keep?"
    assert question(control_of(worded)).endswith("keep only those which are odd numbers. How many do you keep?")


def test_free_wordings_vary_the_question_the_distraction_and_their_order():
    prompts = [question(free) for _, free in free_tasks()]
    shapes = {re.sub(r"\d+", "#", p) for p in prompts}
    assert len(shapes) >= 400  # 1,200 prompts, 48 question frames x 34 distraction sentences
    starts = [p for (_, free), p in zip(free_tasks(), prompts) if free.metadata["params"]["clause_position"] == "start"]
    assert starts and len(starts) < len(prompts)
    assert any(spell(n) in p for p in prompts for n in range(2, 10))  # some operands in words
    assert any("?" in p.split(".")[0] and not p.startswith(("What", "How")) for p in prompts)


def test_the_claimed_and_ruled_out_distractions_read_differently():
    negated = compose("add", (3, 4), "3 + 4", distractors=(8,), kind="ruled_out", key="k")
    claimed = compose("add", (3, 4), "3 + 4", distractors=(8,), kind="claimed", key="k")
    assert negated != claimed and "8" in negated and "8" in claimed
    assert compose("add", (3, 4), "3 + 4", distractors=(8,), position="end", key="k").startswith(
        compose("add", (3, 4), "3 + 4", key="k"))
    with pytest.raises(ValueError, match="kind must be one of ruled_out, claimed"):
        compose("add", (3, 4), "3 + 4", distractors=(8,), kind="rumour")


# Every word that negates in the free double_negation wordings (wordings.NEGATORS, RULED_OUT_CLAIMS).
NEGATION = re.compile(r"\bnot\b|n't|wrong|mistake|incorrect|falsehood|nobody|differs|reject|no truth", re.I)


def test_the_double_negation_is_worded_freely_with_as_many_negations_and_its_twin_names_the_answer():
    shapes = set()
    for template, free in free_tasks(("double_negation",), seeds=range(60)):
        assert free.answer == template.answer and free.metadata["candidates"] == template.metadata["candidates"]
        text, twin = question(free), question(control_of(free))
        assert free.prompt != template.prompt and all(c in text for c in free.metadata["candidates"]), text
        negations = len(NEGATION.findall(text))
        assert negations == free.metadata["negation_depth"], text
        assert control_of(free).answer == free.answer and not NEGATION.search(twin), twin
        shapes.add(re.sub(r"\d+", "#", text))
    assert len(shapes) >= 120
    named = generate_task("double_negation", "hard", 1, template="triple", wording="free")
    assert question(named).startswith(
        "It is wrong to say that it would be a mistake to claim that 2 + 8 doesn't fit.")
    assert named.answer == "16"


def test_no_free_wording_shares_a_four_word_run_with_the_held_out_paraphrases():
    tasks = [free for _, free in free_tasks((*FREE_FAMILIES, *CHOICE_FAMILIES, "double_negation"), seeds=range(400))]
    prompts = {question(task) for task in tasks} | {question(control_of(task)) for task in tasks}
    assert shared_ngrams(prompts, 4) == set()
    assert shared_ngrams(prompts, 4, rows=load_paraphrases(PARITY_PATH)) == set()  # the negation-parity set too
    assert shared_ngrams(["Someone insists the total is 12. They are wrong."], 4)  # the check can see overlap
