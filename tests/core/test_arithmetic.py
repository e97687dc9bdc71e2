from fractions import Fraction

import pytest

from alice_app.arithmetic import mistakes, tokenize, value


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
