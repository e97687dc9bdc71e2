"""The real embedded SmolLM2 plays: a full episode, a short hunt, an eval, tier 3 and the local oracle."""
import json

import pytest

from alice_app.cli import main
from alice_app.services import Services
from alice_app.tasks.registry import generate_task
from alice_app.types import TURN_KINDS

pytestmark = pytest.mark.slow


@pytest.fixture
def services(settings):
    services = Services.from_settings(settings)
    yield services
    services.close()


def test_one_full_episode(embedded_policy, services):
    from alice_app.hunt import play_episodes

    env = services.new_environment(seed=0)
    start = lambda e: e.reset(seed=3, family="negation_arithmetic", level="medium", mode="hunt")  # noqa: E731
    (result,) = play_episodes(embedded_policy, [env], iter([start]), 1, max_tokens=40)
    state = env.state
    assert state["done"] and result.turns == len(state["history"]) <= len(TURN_KINDS)
    assert [turn["kind"] for turn in state["history"]] == list(TURN_KINDS[: result.turns])
    assert all(turn["response"] for turn in state["history"])
    if not result.solved:  # the episode's failure is in the bank
        assert services.bank.get(result.failure_id)["task_id"] == "negation_arithmetic/medium/3"


def test_short_hunt_writes_failures_to_a_temporary_database(tmp_path, monkeypatch, capsys, embedded_models_dir):
    monkeypatch.setenv("ALICE_DATA_DIR", str(embedded_models_dir.parent))  # reuse the converted model
    db = tmp_path / "hunt.db"
    code = main(["hunt", "--episodes", "4", "--db", str(db), "--families", "negation_arithmetic",
                 "--batch-size", "4", "--max-tokens", "32", "--seed", "1"])
    out = capsys.readouterr().out
    assert code == 0 and "negation_arithmetic" in out and "solved_t1" in out
    with Services.from_settings(Services.from_settings.__self__ and _settings(db)) as_services(db) if False else _open(db) as services:
        pass


def _settings(db):
    from alice_app.config import Settings

    return Settings(db_path=db)
