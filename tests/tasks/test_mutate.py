from random import Random

import pytest

from alice_app.tasks import family_names, generate_task, get_family
from alice_app.tasks._arith import evaluate
from alice_app.tasks.mutate import MUTATION_AXES, available_axes, mutate


@pytest.mark.parametrize("family", family_names())
def test_mutant_is_a_valid_task_differing_along_one_axis(family):
    for level in ("easy", "medium", "hard"):
        for seed in range(15):
            parent = generate_task(family, level, seed)
            child = mutate(parent, Random(seed))
            axis = child.metadata["mutation"]["axis"]
            assert axis in MUTATION_AXES and child.metadata["parent_id"] == parent.id
            assert (child.family, child.level) == (parent.family, parent.level)
            assert child.id != parent.id
            if axis != "numbers":
                assert child.metadata["params"][axis] == child.metadata["mutation"]["to"] != parent.metadata["params"][axis]
                unchanged = {k: v for k, v in parent.metadata["params"].items() if k != axis}
                assert {k: child.metadata["params"][k] for k in unchanged} == unchanged
            if "expression" in child.metadata:
                assert str(evaluate(child.metadata["expression"])) == child.answer
            again = generate_task(family, level, child.seed, **_params(child))
            assert (again.prompt, again.answer) == (child.prompt, child.answer)


def _params(task):
    accepted = get_family(task.family).params
    return {k: v for k, v in task.metadata["params"].items() if k in accepted}


def test_mutation_is_deterministic_and_reaches_every_declared_axis():
    parent = generate_task("negation_arithmetic", "medium", 4)
    assert mutate(parent, Random(1)) == mutate(parent, Random(1))
    seen = {mutate(parent, Random(s)).metadata["mutation"]["axis"] for s in range(60)}
    assert seen == {"negation_form", "distractors", "operand_digits", "clause_position", "phrasing", "wording"}


def test_families_without_axes_fall_back_to_new_numbers():
    parent = generate_task("rg_basic_arithmetic", "easy", 3)
    assert available_axes(parent) == []
    child = mutate(parent, Random(0))
    assert child.metadata["mutation"]["axis"] == "numbers" and child.seed != parent.seed


def test_mutating_the_clause_position_keeps_the_numbers():
    parent = generate_task("negation_arithmetic", "hard", 8)
    for s in range(40):
        child = mutate(parent, Random(s))
        if child.metadata["mutation"]["axis"] in {"clause_position", "negation_form"}:
            assert child.metadata["operands"] == parent.metadata["operands"]
            assert child.answer == parent.answer
