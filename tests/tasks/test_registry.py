import pytest

from alice_app.tasks import Family, core_family_names, family_names, generate_task, get_family, register
from alice_app.types import Task

BUILT_IN = {"negation_arithmetic", "double_negation", "false_claim", "negated_comparison",
            "exclusion_counting", "distractor_order_of_ops", "plain_arithmetic", "rg_basic_arithmetic"}


def test_importing_the_package_registers_every_built_in_family():
    assert BUILT_IN <= set(family_names())


def test_core_families_exclude_the_control_and_the_adapter():
    core = set(core_family_names())
    assert "plain_arithmetic" not in core and "rg_basic_arithmetic" not in core
    assert {"negation_arithmetic", "double_negation", "false_claim"} <= core


def test_unknown_family_lists_the_valid_names():
    with pytest.raises(ValueError, match="negation_arithmetic"):
        generate_task("no_such_family", "easy", 1)
    with pytest.raises(ValueError, match="unknown task family"):
        get_family("nope")


def test_unknown_level_lists_the_levels():
    with pytest.raises(ValueError, match="easy, medium, hard"):
        generate_task("negation_arithmetic", "expert", 1)


def test_unknown_param_lists_the_accepted_params():
    with pytest.raises(ValueError, match="accepted params: template"):
        generate_task("negation_arithmetic", "easy", 1, colour="red")
    with pytest.raises(ValueError, match="accepted params: none"):
        generate_task("rg_basic_arithmetic", "easy", 1, template="add")


@pytest.mark.parametrize("seed", ["1", 1.5, True, None])
def test_non_integer_seed_is_rejected(seed):
    with pytest.raises(ValueError, match="seed must be a whole number"):
        generate_task("negation_arithmetic", "easy", seed)


@pytest.mark.parametrize("params", [
    {"template": "nested"},  # not one of negation_arithmetic's templates
    {"negation_form": "shouting"},
    {"distractors": 0}, {"distractors": 4}, {"distractors": "2"},
    {"operand_digits": 9},
    {"clause_position": "middle"},
    {"operands": (1, 2, 3)}, {"operands": "12"}, {"operands": (1, True)},
])
def test_bad_param_values_raise_value_error(params):
    with pytest.raises(ValueError):
        generate_task("negation_arithmetic", "easy", 1, **params)


def test_ids_follow_the_contract_and_are_stable():
    assert generate_task("negation_arithmetic", "easy", 7).id == "negation_arithmetic/easy/7"
    with_params = generate_task("negation_arithmetic", "easy", 7, template="add", distractors=2)
    assert with_params.id == "negation_arithmetic/easy/7#d507f2a5"
    # The hash depends on the params, not on the order they were given in.
    assert generate_task("negation_arithmetic", "easy", 7, distractors=2, template="add").id == with_params.id


def test_generation_is_stable_across_versions():
    # A golden task: if this changes, every stored seed in users' banks changes meaning.
    task = generate_task("negation_arithmetic", "easy", 7)
    assert task.prompt.splitlines()[0] == "If the result is NOT 8, what is 9 - 2?"
    assert task.answer == "7"


def test_register_validates_names_and_choices():
    def generate(level, seed, params):
        return Task(id="x", family="x", level=level, prompt="p", answer="1", hint="h", seed=seed)

    with pytest.raises(ValueError, match="no '/'"):
        register(Family(name="a/b", description="", generate=generate))
    with pytest.raises(ValueError, match="not declared params"):
        register(Family(name="custom_x", description="", generate=generate, choices={"distractors": (1, 2)}))
