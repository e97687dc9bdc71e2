import pytest

from alice_app.curriculum import (CurriculumConfig, FamilyState, discrimination, in_zone, pin, record_outcome,
                                  rolling_accuracy)

CONFIG = CurriculumConfig(window=10, promote_at=0.8, demote_at=0.3, min_samples=5)


def _play(state, outcomes, config=CONFIG):
    for correct in outcomes:
        state = record_outcome(state, correct, config)
    return state


def test_promotes_after_enough_good_episodes_and_clears_the_window():
    state = _play(FamilyState("negation_arithmetic"), [True] * 4)
    assert state.level == "easy" and rolling_accuracy(state) == 1.0  # under min_samples
    state = record_outcome(state, True, CONFIG)
    assert state.level == "medium" and state.outcomes == () and rolling_accuracy(state) is None


def test_demotes_and_never_leaves_the_level_range():
    state = _play(FamilyState("f", level="medium"), [False] * 5)
    assert state.level == "easy"
    assert _play(state, [False] * 20).level == "easy"
    assert _play(FamilyState("f", level="hard"), [True] * 20).level == "hard"


def test_middling_accuracy_stays():
    state = _play(FamilyState("f"), [True, False] * 10)
    assert state.level == "easy" and len(state.outcomes) == CONFIG.window


def test_pinned_family_never_moves():
    state = pin(FamilyState("f"), "hard")
    assert (state.level, state.pinned) == ("hard", "hard")
    state = _play(state, [False] * 30)
    assert state.level == "hard" and len(state.outcomes) == CONFIG.window
    assert pin(state, None).pinned is None and pin(state, None).level == "hard"


def test_pin_validates_the_level():
    with pytest.raises(ValueError, match="easy, medium, hard"):
        pin(FamilyState("f"), "expert")


@pytest.mark.parametrize("changes, message", [
    ({"window": 0}, "window"), ({"min_samples": 30}, "min_samples"), ({"promote_at": 0.2}, "demote_at"),
    ({"zone": (0.9, 0.1)}, "zone"), ({"zone": "wide"}, "zone"), ({"repair_mix": 1.5}, "repair_mix"),
])
def test_config_validation_says_what_to_fix(changes, message):
    with pytest.raises(ValueError, match=message):
        CurriculumConfig(**changes).validate()


def test_config_and_state_round_trip():
    config = CurriculumConfig(window=12, zone=(0.1, 0.9)).validate()
    assert CurriculumConfig.from_dict(config.to_dict()) == config
    state = FamilyState("f", "medium", (True, False), pinned="medium")
    assert FamilyState.from_dict(state.to_dict()) == state


def test_discrimination_peaks_at_one_half():
    assert discrimination(0.5) == 1.0
    assert discrimination(0.0) == discrimination(1.0) == 0.0
    assert discrimination(0.25) == discrimination(0.75) < 1.0
    with pytest.raises(ValueError):
        discrimination(1.2)


def test_zone():
    assert in_zone(0.5) and in_zone(0.2) and in_zone(0.8)
    assert not in_zone(0.0) and not in_zone(1.0)
    assert in_zone(0.95, (0.9, 1.0))
