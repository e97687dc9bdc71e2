"""Control twins: same numbers and seed, the deception removed, reached only through control_of."""
import pytest

from alice_app.tasks import control_of, core_family_names, family_names, generate_task, has_control
from alice_app.types import LEVELS
from alice_app.verify.stack import VerifierStack


def test_every_core_family_has_a_twin_and_twins_are_not_menu_families():
    assert all(has_control(name) for name in core_family_names())
    assert not any(name.endswith("_control") for name in family_names())


@pytest.mark.parametrize("family", core_family_names())
def test_twin_keeps_seed_level_numbers_and_drops_the_deception(family):
    verifier = VerifierStack()
    for level in LEVELS:
        for seed in range(15):
            task = generate_task(family, level, seed)
            twin = control_of(task)
            assert (twin.seed, twin.level) == (task.seed, task.level)
            assert twin.metadata["operands"] == task.metadata["operands"]
            assert twin.metadata["negated"] is False and twin.metadata["distractors"] == []
            lowered = twin.prompt.lower()
            assert " not " not in lowered and "wrong" not in lowered and "ignored" not in lowered
            assert twin.id.startswith(twin.family + "/") and twin.family != family
            assert verifier.verify(twin, f"Answer: {twin.answer}").is_correct


def test_negation_arithmetic_twin_is_the_plain_arithmetic_task():
    for level in LEVELS:
        for seed in range(20):
            twin = control_of(generate_task("negation_arithmetic", level, seed))
            plain = generate_task("plain_arithmetic", level, seed)
            assert (twin.id, twin.prompt, twin.answer) == (plain.id, plain.prompt, plain.answer)


def test_examples_of_twins():
    comparison = control_of(generate_task("negated_comparison", "easy", 0, template="not_smaller", operands=(19, 78)))
    assert comparison.prompt.startswith("Which is the larger: 19 or 78?") and comparison.answer == "78"
    counting = control_of(generate_task("exclusion_counting", "easy", 0, template="not_even", operands=(3, 8, 5, 10)))
    assert counting.prompt.startswith("How many of 3, 8, 5 and 10 are even?") and counting.answer == "2"
    claim = control_of(generate_task("false_claim", "easy", 0, template="add", operands=(3, 4)))
    assert claim.prompt.startswith("What is 3 + 4?") and claim.answer == "7"


def test_a_family_without_a_twin_is_refused_by_name():
    with pytest.raises(ValueError, match="plain_arithmetic.*no control twin"):
        control_of(generate_task("plain_arithmetic", "easy", 0))
