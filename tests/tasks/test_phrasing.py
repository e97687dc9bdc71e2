"""The phrasing axis: the same task asked in other words, numbers and answer unchanged."""
import re

import pytest

from alice_app.tasks._arith import PHRASINGS, SHAPES, ask, in_words
from alice_app.tasks.registry import control_of, generate_task

PHRASED = ("negation_arithmetic", "false_claim", "plain_arithmetic", "distractor_order_of_ops")


@pytest.mark.parametrize("family", PHRASED)
@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_every_phrasing_keeps_the_numbers_and_the_answer(family, level):
    base = generate_task(family, level, 11)
    assert generate_task(family, level, 11, phrasing="symbols").prompt == base.prompt  # the default wording
    prompts = set()
    for phrasing in PHRASINGS:
        task = generate_task(family, level, 11, phrasing=phrasing)
        assert task.answer == base.answer
        assert task.metadata["operands"] == base.metadata["operands"]
        assert task.metadata["distractors"] == base.metadata["distractors"]
        assert task.metadata["params"]["phrasing"] == phrasing
        prompts.add(task.prompt)
    assert len(prompts) == len(PHRASINGS)


def test_the_instruction_names_the_operation_in_the_right_order():
    assert ask(SHAPES["sub"], (9, 2), "verb") == ("subtract 2 from 9", ".")
    assert ask(SHAPES["add3"], (1, 2, 3), "verb") == ("add 1, 2 and 3", ".")
    assert ask(SHAPES["paren_mul"], (1, 2, 3), "verb") == ("calculate (1 plus 2) times 3", ".")  # no verb: words
    assert ask(SHAPES["sub"], (9, 2), "how_much") == ("how much is 9 minus 2", "?")
    assert in_words("4 × (3 - 1)") == "4 times (3 minus 1)"
    assert ask(SHAPES["mixed"], (7, 12, 3), "spelled") == ("what is seven plus twelve times three", "?")
    assert ask(SHAPES["add"], (7, 4), "value_of") == ("find the value of 7 + 4", ".")


@pytest.mark.parametrize("number", [0, 7, 13, 20, 42, 99, 100, 105, 999, 1000, 1234, -5, -305, 540321])
def test_spelled_numbers_read_back_as_the_same_number(number):
    from alice_app.numbers import spell, words_to_fraction

    assert words_to_fraction(spell(number)) == number


def test_the_clause_reads_before_or_after_an_instruction():
    start = generate_task("negation_arithmetic", "easy", 3, phrasing="verb", template="add", operands=(1, 8))
    assert re.match(r"If the result is NOT \d+, add 1 and 8\.\n", start.prompt)
    end = generate_task("negation_arithmetic", "hard", 3, phrasing="work_out", template="add", operands=(1, 8))
    assert end.prompt.startswith("Work out 1 + 8, given that the result")


@pytest.mark.parametrize("family", ["negation_arithmetic", "false_claim", "distractor_order_of_ops"])
def test_a_control_twin_asks_in_the_same_words(family):
    task = generate_task(family, "medium", 5, phrasing="how_much")
    twin = control_of(task)
    assert twin.prompt.startswith("How much is ") and twin.answer == task.answer
    assert not any(str(d) in twin.prompt.split("\n")[0] for d in task.metadata["distractors"]
                   if str(d) not in task.metadata["expression"])


def test_an_unknown_phrasing_is_refused():
    with pytest.raises(ValueError, match="phrasing must be one of"):
        generate_task("negation_arithmetic", "easy", 0, phrasing="shout")


# The families that frame a question rather than ask for an expression have their own phrasings.
FRAMED = ("negated_comparison", "double_negation", "exclusion_counting")


@pytest.mark.parametrize("family", FRAMED)
@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
@pytest.mark.parametrize("position", ["start", "end"])
def test_framed_families_keep_their_values_and_answer_in_every_phrasing(family, level, position):
    from alice_app.tasks.registry import get_family

    phrasings = get_family(family).choices["phrasing"]
    base = generate_task(family, level, 11, clause_position=position)
    assert generate_task(family, level, 11, clause_position=position, phrasing=phrasings[0]).prompt == base.prompt
    prompts, twins = set(), set()
    for phrasing in phrasings:
        task = generate_task(family, level, 11, clause_position=position, phrasing=phrasing)
        assert (task.answer, task.metadata["operands"]) == (base.answer, base.metadata["operands"])
        assert task.metadata["params"]["phrasing"] == phrasing
        assert all(re.search(rf"(?<!\d){n}(?!\d)", task.prompt) for n in task.metadata["operands"])
        twin = control_of(task)
        assert twin.answer == control_of(base).answer and "NOT" not in twin.prompt and "not" not in twin.prompt
        prompts.add(task.prompt)
        twins.add(twin.prompt)
    assert len(prompts) == len(twins) == len(phrasings)


def test_framed_twins_ask_in_the_family_tasks_words():
    task = generate_task("negated_comparison", "easy", 2, phrasing="choose", template="not_larger", operands=(17, 23))
    assert task.prompt.startswith("Choose the one that is NOT the larger: 17 or 23.")
    assert control_of(task).prompt.startswith("Choose the one that is the smaller: 17 or 23.")
    task = generate_task("exclusion_counting", "easy", 2, phrasing="say", template="not_even", operands=(3, 8, 5, 10),
                         clause_position="end")
    assert task.prompt.startswith("Count how many of 3, 8, 5, 10 are NOT even.") and task.answer == "2"
    assert control_of(task).prompt.startswith("Count how many of 3, 8, 5 and 10 are even.")
    task = generate_task("double_negation", "easy", 2, phrasing="must_be", clause_position="end")
    assert task.prompt.startswith("The answer must be ") and "Work out which, and give its value." in task.prompt
    assert control_of(task).prompt.startswith("The answer must be ")
