import pytest

from alice_app.tasks import generate_task

FAMILY = "exclusion_counting"


def test_the_issue_example():
    task = generate_task(FAMILY, "easy", 0, template="not_even", operands=(3, 8, 5, 10), clause_position="end")
    assert task.prompt.startswith("How many of 3, 8, 5, 10 are NOT even?")
    assert task.answer == "2"
    assert task.metadata["alternatives"] == [4]  # counting the evens instead gives 2 too, so only the total


@pytest.mark.parametrize("template,predicate", [
    ("not_even", lambda x: x % 2 != 0), ("not_odd", lambda x: x % 2 == 0),
])
def test_counts_match_an_independent_count(template, predicate):
    for seed in range(100):
        task = generate_task(FAMILY, "easy", seed, template=template)
        assert int(task.answer) == sum(map(predicate, task.metadata["operands"]))


def test_hard_lists_are_longer_and_compound():
    easy = generate_task(FAMILY, "easy", 1)
    hard = generate_task(FAMILY, "hard", 1)
    assert len(hard.metadata["operands"]) > len(easy.metadata["operands"])
    assert " and " in hard.prompt.split("in this list")[0]


def test_neither_even_nor_greater_with_fixed_list():
    task = generate_task(FAMILY, "hard", 0, template="neither_even_nor_greater", operands=(3, 8, 5, 10, 7))
    threshold = int(task.prompt.split("greater than ")[1].split()[0])
    expected = sum(1 for x in (3, 8, 5, 10, 7) if x % 2 == 1 and x <= threshold)
    assert task.answer == str(expected)


def test_operand_count_is_bounded():
    with pytest.raises(ValueError, match="number of operands"):
        generate_task(FAMILY, "easy", 0, operands=(1,))
