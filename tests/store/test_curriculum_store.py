from dataclasses import replace

import pytest

from alice_app.curriculum import CurriculumConfig, FamilyState, record_outcome
from alice_app.store.curriculum import CurriculumStore
from alice_app.store.db import open_db


def test_unknown_families_start_easy(db):
    states = CurriculumStore(db).load(["negation_arithmetic", "false_claim"])
    assert states == {"negation_arithmetic": FamilyState("negation_arithmetic"), "false_claim": FamilyState("false_claim")}


def test_state_config_and_history_survive_a_reopen(db_path):
    store = CurriculumStore(open_db(db_path))
    config = CurriculumConfig(window=4, min_samples=2, promote_at=0.75, repair_mix=0.5, zone=(0.1, 0.9))
    store.save_config(config)
    state = FamilyState("negation_arithmetic")
    for correct in (True, True):
        state = record_outcome(state, correct, config)
        store.save(state)
    assert state.level == "medium"
    store.save(replace(state, pinned="hard", level="hard"))
    store.db.close()

    reopened = CurriculumStore(open_db(db_path))
    assert reopened.load_config() == config
    loaded = reopened.load(["negation_arithmetic"])["negation_arithmetic"]
    assert (loaded.level, loaded.pinned, loaded.outcomes) == ("hard", "hard", ())
    history = reopened.history("negation_arithmetic")
    assert [h["level"] for h in history] == ["easy", "medium", "hard"]
    assert history[0]["accuracy"] == 1.0 and history[1]["accuracy"] is None
    assert set(history[0]) == {"ts", "family", "level", "accuracy"}


def test_outcome_windows_round_trip_exactly(db):
    store = CurriculumStore(db)
    store.save(FamilyState("false_claim", "medium", (True, False, False, True)))
    assert store.load(["false_claim"])["false_claim"].outcomes == (True, False, False, True)


def test_invalid_values_are_refused_before_writing(db):
    store = CurriculumStore(db)
    with pytest.raises(ValueError):
        store.save_config(CurriculumConfig(promote_at=0.2, demote_at=0.5))
    with pytest.raises(ValueError, match="level must be one of"):
        store.save(FamilyState("x", level="impossible"))
    assert store.load_config() == CurriculumConfig() and store.history() == []


def test_a_stored_config_that_no_longer_validates_falls_back_to_defaults(db):
    db.execute("INSERT INTO curriculum_config (id, config, updated_at) VALUES (1, ?, 'then')",
               ['{"window": -3, "retired_field": 1}'])
    assert CurriculumStore(db).load_config() == CurriculumConfig()


def test_reset_forgets_state_history_and_pass_rates_but_keeps_config(db):
    store = CurriculumStore(db)
    store.save_config(CurriculumConfig(repair_mix=0.9))
    store.save(FamilyState("false_claim", "hard"))
    store.record_pass_rate("false_claim/hard/1", "false_claim", "hard", 2, 4)
    store.reset()
    assert store.load(["false_claim"])["false_claim"].level == "easy"
    assert store.history() == [] and store.pass_rate("false_claim/hard/1") is None
    assert store.load_config().repair_mix == 0.9


def test_pass_rates_replace_and_feed_the_zone(db):
    store = CurriculumStore(db)
    assert store.pass_rate("f/easy/1") is None
    store.record_pass_rate("f/easy/1", "f", "easy", 0, 4)
    store.record_pass_rate("f/easy/1", "f", "easy", 2, 4)  # the latest estimate wins
    store.record_pass_rate("f/easy/2", "f", "easy", 4, 4)
    store.record_pass_rate("f/hard/3", "f", "hard", 1, 2)
    assert store.pass_rate("f/easy/1") == 0.5
    assert store.zone_tasks("f", "easy", (0.2, 0.8)) == ["f/easy/1"]
    assert store.zone_tasks("f", "hard", (0.2, 0.8)) == ["f/hard/3"]
    for passes, n in ((5, 4), (-1, 4), (1, 0)):
        with pytest.raises(ValueError):
            store.record_pass_rate("f/easy/9", "f", "easy", passes, n)


def test_history_can_be_filtered_and_limited(db):
    store = CurriculumStore(db)
    for family in ("a", "b", "a"):
        store.save(FamilyState(family))
    assert len(store.history()) == 3 and len(store.history("a")) == 2
    assert len(store.history(limit=1)) == 1


def test_update_is_atomic_across_threads(db):
    import threading

    store = CurriculumStore(db)
    config = CurriculumConfig(window=200, min_samples=200)

    def worker() -> None:
        for _ in range(25):
            store.update("f", lambda state: record_outcome(state, True, config))

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(store.load(["f"])["f"].outcomes) == 100
    before, after = store.update("f", lambda state: state)
    assert before is after and len(store.history("f")) == 100
