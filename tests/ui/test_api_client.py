"""The launched app scripted through gradio_client: every event has an api_name."""
import pytest
from gradio_client import Client

from alice_app.ui.episode import CHOSEN


@pytest.fixture
def client(live_app):
    _, url = live_app
    return Client(url, verbose=False)


def start(client, family="negation_arithmetic", level="easy", seed=21):
    return client.predict(family, level, seed, CHOSEN, api_name="/new_episode")


def test_play_an_episode_by_typing_answers(client):
    task_md, *_, state = start(client, seed=21)
    assert state["task"]["id"] == "negation_arithmetic/easy/21" and state["task"]["prompt"].splitlines()[0] in task_md
    for turn in range(1, 4):
        out = client.predict("Answer: 99999", api_name="/answer")
        assert len(out[-1]["history"]) == turn and "✗ wrong" in out[1]
    out = client.predict(f"Answer: {state['task']['answer']}", api_name="/answer")
    assert out[-1]["solved"] is True and "**Solved** at turn 4" in out[5]
    assert [row[4] for row in out[4]["data"]] == ["✗", "✗", "✗", "✓"]


def test_failed_episode_is_banked_then_tagged_and_read_back(client, live_app):
    services, _ = live_app
    start(client, family="false_claim", level="easy", seed=5)
    for _ in range(5):
        out = client.predict("Answer: 99999", api_name="/answer")
    failure_id = out[-1]["failure_id"]
    assert "failure bank" in out[5]
    status = client.predict("", "api-tagged, review", failure_id, api_name="/add_tags")
    assert "Added" in status
    detail, notes, tags = client.predict(failure_id, api_name="/open_failure")
    assert "`api-tagged`" in detail and tags == "api-tagged, review"
    assert services.bank.get(failure_id)["tags"] == ["api-tagged", "review"]  # persisted in SQLite
    client.predict(failure_id, "seen through the API", api_name="/save_notes")
    rows, info, _ = client.predict("(all)", "(all)", "(all)", "api-tagged", "(all)", "", "", "", 1, 25,
                                   api_name="/search_failures")
    assert [r[0] for r in rows["data"]] == [failure_id] and "1 failure" in info
    assert services.bank.get(failure_id)["notes"] == "seen through the API"


def test_two_clients_keep_their_own_episodes(live_app):
    _, url = live_app
    alice, bob = Client(url, verbose=False), Client(url, verbose=False)
    start(alice, family="negation_arithmetic", seed=1)
    start(bob, family="false_claim", level="medium", seed=2)
    alice_state = alice.predict("Answer: 99999", api_name="/answer")[-1]
    bob_state = bob.predict("Answer: 99998", api_name="/answer")[-1]
    assert alice_state["task"]["family"] == "negation_arithmetic" and bob_state["task"]["family"] == "false_claim"
    assert [t["response"] for t in alice_state["history"]] == ["Answer: 99999"]
    assert [t["response"] for t in bob_state["history"]] == ["Answer: 99998"]


def test_curriculum_and_charts_are_scriptable(client):
    assert "⚠ Not saved" in client.predict(20, 0.2, 0.9, 8, 0.2, 0.8, 0.3, api_name="/save_curriculum")
    assert "pinned" in client.predict("plain_arithmetic", "medium", api_name="/pin_level")
    figures = client.predict(None, api_name="/refresh_charts")
    assert len(figures) == 7
    live, runs, evals = client.predict(None, api_name="/training_progress")
    assert "Run" in live or "No training run yet" in live
