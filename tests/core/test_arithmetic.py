from fractions import Fraction

import pytest

from alice_app.arithmetic import mistakes, tokenize, value, working


@pytest.mark.parametrize("expr, expected", [
    ("7 + 3", 10), ("1 + 8 × 5", 41), ("(87 + 11) × 70", 6860), ("41 × (93 - 16)", 3157),
    ("-3 - -4", 1), ("7 * 3", 21), ("3 / 4", Fraction(3, 4)), ("10 − 4", 6),
])
def test_value_follows_the_usual_order_of_operations(expr, expected):
    assert value(expr) == expected


@pytest.mark.parametrize("expr", ["3 / 0", "2 ** 3", "a + b", "(1 + 2", "1 +", "", "9" * 300])
def test_value_refuses_anything_else(expr):
    assert value(expr) is None


def test_mistakes_cover_swapped_operators_dropped_parentheses_and_left_to_right():
    found = dict((result, variant) for variant, result in mistakes("(87 + 11) × 70"))
    assert found[5320] == "(87 - 11) × 70"
    assert found[857] == "87 + 11 × 70"
    left_to_right = dict((result, variant) for variant, result in mistakes("1 + 8 × 5"))
    assert left_to_right[45] == "(1 + 8) × 5"
    assert 41 not in left_to_right  # never the right value


def test_tokenize_folds_unary_minus():
    assert tokenize("-3 - -4") == ["-3", "-", "-4"]


@pytest.mark.parametrize("expr, steps", [
    ("1 + 8", ["1 + 8 = 9"]),
    ("1 + 8 × 5", ["1 + 8 × 5 = 1 + 40", "1 + 40 = 41"]),
    ("5 - 2 - 1", ["5 - 2 - 1 = 3 - 1", "3 - 1 = 2"]),  # left to right
    ("(1 + 2) × (7 - 3)", ["(1 + 2) × (7 - 3) = 3 × (7 - 3)", "3 × (7 - 3) = 3 × 4", "3 × 4 = 12"]),
    ("2 × (5 - 7) + 1", ["2 × (5 - 7) + 1 = 2 × -2 + 1", "2 × -2 + 1 = -4 + 1", "-4 + 1 = -3"]),
    ("3 + 4 ÷ 2", ["3 + 4 ÷ 2 = 3 + 2", "3 + 2 = 5"]),
    ("((2 + 3)) × 4", ["((2 + 3)) × 4 = 5 × 4", "5 × 4 = 20"]),  # brackets around one number go at once
    ("7 ÷ 2 + 1", ["7 ÷ 2 + 1 = 9/2"]),  # a step that is not whole: the whole expression in one line
    ("7", []), ("(7)", []), ("seven", []), ("1 ÷ 0", []),
])
def test_working_takes_one_operation_a_step_in_the_usual_order_restating_the_expression(expr, steps):
    assert working(expr) == steps


def test_every_working_step_is_true_and_the_last_one_is_the_value():
    for expr in ("12 - 3 × 4 + 8", "(9 - 4) × (2 + 6) - 7", "3 × 4 × 5 + 1", "((2 + 3)) × 4"):
        steps = working(expr)
        assert all(value(left) == value(right) for left, right in (step.split(" = ") for step in steps))
        assert value(steps[-1].split(" = ")[1]) == value(expr)
