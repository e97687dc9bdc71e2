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
