import pytest

from alice_app.tasks import generate_task

FAMILY = "negated_comparison"


@pytest.mark.parametrize("template,operands,answer,other", [
    ("not_larger", (17, 23), "17", [23]),
    ("not_smaller", (17, 23), "23", [17]),
    ("not_greater", (40, 9), "9", [40]),
])
def test_easy_picks_the_option_without_the_property(template, operands, answer, other):
    task = generate_task(FAMILY, "easy", 0, template=template, operands=operands)
    assert task.answer == answer and task.metadata["alternatives"] == other


def test_the_issue_example_reads_as_written():
    task = generate_task(FAMILY, "easy", 0, template="not_larger", operands=(17, 23))
    assert task.prompt.startswith("Which is NOT the larger: 17 or 23?")


def test_middle_of_three_and_second_smallest_of_four():
    assert generate_task(FAMILY, "medium", 0, template="middle", operands=(25, 73, 67)).answer == "67"
    assert generate_task(FAMILY, "hard", 0, template="second_smallest", operands=(8, 1, 30, 5)).answer == "5"


def test_expressions_are_compared_by_value():
    for seed in range(30):
        task = generate_task(FAMILY, "hard", seed, template="expr_not_larger")
        assert int(task.answer) == min(task.metadata["values"])
        assert "Give its value." in task.prompt


def test_swapped_digits_are_reversals():
    task = generate_task(FAMILY, "medium", 3, template="swap_not_larger")
    first, second = task.metadata["values"]
    assert str(first)[::-1] == str(second)


def test_equal_options_are_rejected():
    with pytest.raises(ValueError, match="different values"):
        generate_task(FAMILY, "easy", 0, template="not_larger", operands=(5, 5))
