import pytest
from hypothesis import given, strategies as st

from alice_app.tasks._arith import SHAPES, confusions, evaluate, order_mistakes, render, tempting_pool

operands = st.lists(st.integers(min_value=0, max_value=999), min_size=4, max_size=4)


@given(st.sampled_from(sorted(SHAPES)), operands)
def test_evaluate_matches_python_on_every_shape(name, numbers):
    expr, _ = render(SHAPES[name], numbers)
    assert evaluate(expr) == eval(expr.replace("×", "*"))  # noqa: S307 (trusted test input)


@given(st.sampled_from(sorted(SHAPES)), operands)
def test_confusions_and_pool_never_contain_the_answer(name, numbers):
    expr, _ = render(SHAPES[name], numbers)
    answer = evaluate(expr)
    pool = tempting_pool(expr)
    assert answer not in confusions(expr) and answer not in pool and answer not in order_mistakes(expr)
    assert len(pool) >= 6 and len(set(pool)) == len(pool)


def test_known_mistakes():
    assert 20 in order_mistakes("2 + 3 × 4")  # left to right
    assert 27 in order_mistakes("3 × 4 + 5")  # right to left
    assert -1 in confusions("3 + 4") and 12 in confusions("3 + 4")  # wrong operator


@pytest.mark.parametrize("bad", ["(1 + 2", "1 +", "1 2", "", "1 ^ 2", "12a"])
def test_malformed_expressions_raise_value_error(bad):
    with pytest.raises(ValueError):
        evaluate(bad)
