"""Properties every family × level × seed must have (hypothesis)."""
import re
from fractions import Fraction

from hypothesis import given, settings, strategies as st

from alice_app.tasks import family_names, generate_task, get_family
from alice_app.tasks._arith import evaluate
from alice_app.tasks._common import ANSWER_FORMAT
from alice_app.types import LEVELS, Task

REQUIRED_METADATA = {"template", "operands", "operator", "distractors", "negated", "alternatives", "params"}
seeds = st.integers(min_value=0, max_value=2**31)
cells = st.tuples(st.sampled_from(family_names()), st.sampled_from(LEVELS), seeds)


def numbers_in(text: str) -> set[Fraction]:
    return {Fraction(n) for n in re.findall(r"(?<![\w.])-?\d+(?:[./]\d+)?(?!\w)", text)}


def check_task(task: Task, family: str, level: str, seed: int) -> None:
    assert (task.family, task.level, task.seed) == (family, level, seed)
    assert task.id.startswith(f"{family}/{level}/{seed}")
    assert task.prompt.strip() and task.prompt.endswith(ANSWER_FORMAT)
    answer = Fraction(task.answer)  # parses as a number
    assert task.answer == (str(answer.numerator) if answer.denominator == 1 else f"{answer.numerator}/{answer.denominator}")
    assert "answer is" not in task.hint.lower()
    assert answer not in numbers_in(task.hint) and -answer not in numbers_in(task.hint)
    assert REQUIRED_METADATA <= set(task.metadata)
    assert answer not in {Fraction(d) for d in task.metadata["distractors"]}
    assert answer not in {Fraction(a) for a in task.metadata["alternatives"]}
    if "expression" in task.metadata:
        assert evaluate(task.metadata["expression"]) == answer
    scorer = get_family(family).scorer
    if scorer is not None:
        assert scorer(task, f"Working...\nAnswer: {task.answer}") == 1.0


@settings(max_examples=400, deadline=None)
@given(cells)
def test_every_task_is_well_formed_and_deterministic(cell):
    family, level, seed = cell
    task = generate_task(family, level, seed)
    check_task(task, family, level, seed)
    assert generate_task(family, level, seed) == task


@settings(max_examples=300, deadline=None)
@given(cells, st.data())
def test_any_declared_param_choice_gives_a_valid_task(cell, data):
    family, level, seed = cell
    choices = get_family(family).choices
    params = {name: data.draw(st.sampled_from(values)) for name, values in choices.items()
              if data.draw(st.booleans())}
    task = generate_task(family, level, seed, **params)
    check_task(task, family, level, seed)
    for name, value in params.items():
        assert task.metadata["params"][name] == value
    assert generate_task(family, level, seed, **params) == task


@settings(max_examples=200, deadline=None)
@given(cells)
def test_tasks_round_trip_through_dict(cell):
    task = generate_task(*cell)
    assert Task.from_dict(task.to_dict()) == task
