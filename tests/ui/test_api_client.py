"""The launched app scripted through gradio_client: every event has an api_name, and a bad
input through the API gets the same clear message as in the browser."""
import pytest
from gradio_client import Client

from alice_app.ui.bank import NOT_TRAINING
from alice_app.ui.episode import CHOSEN


@pytest.fixture
def client(live_app):
    _, url = live_app
    return Client(url, verbose=False)


def text_of(message) -> str:
    """A chat message's text (Gradio 6 sends content as a list of typed parts)."""
    content = message["content"]
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content)


def start(client, family="negation_arithmetic", level="easy", seed=21):
    return client.predict(family, level, str(seed), CHOSEN, api_name="/new_episode")


def test_play_an_episode_by_typing_answers(client):
    task_md, chat, status, state, box = start(client, seed=21)
    assert state["task"]["id"] == "negation_arithmetic/easy/21" and "turn 1 of 5" in task_md
    assert state["task"]["prompt"].splitlines()[0] in text_of(chat[0])
    for turn in range(1, 4):
        task_md, chat, status, state, box = client.predict("Answer: 99999", api_name="/answer")
        assert len(state["history"]) == turn and box == "" and f"turn {turn + 1} of 5" in task_md
    task_md, chat, status, state, box = client.predict(f"Answer: {state['task']['answer']}", api_name="/answer")
    assert state["solved"] is True and "**Solved** at turn 4" in status
    badges = [text_of(m) for m in chat if m["role"] == "assistant"]
    assert ["✓ correct" in b for b in badges] == [False, False, False, True]


def test_a_huge_seed_gets_the_bound_not_a_generic_error(client):
    task_md, chat, status, state, box = start(client, seed=2**64)
    assert status.startswith("⚠ Seed") and "9223372036854775807" in status


def test_failed_episode_is_banked_then_tagged_and_read_back(client, live_app):
    services, _ = live_app
    start(client, family="false_claim", level="easy", seed=5)
    for _ in range(5):
        *_, state, _ = client.predict("Answer: 99999", api_name="/answer")
    failure_id = state["failure_id"]
    assert services.bank.get(failure_id)["source"] == "manual"
    status = client.predict("", "api-tagged, review", str(failure_id), "", api_name="/add_tags")
    assert "Added" in status
    detail, notes = client.predict(str(failure_id), api_name="/open_failure")
    assert "`api-tagged`" in detail
    assert services.bank.get(failure_id)["tags"] == ["api-tagged", "review"]  # persisted in SQLite
    client.predict(str(failure_id), "seen through the API", "", api_name="/save_notes")
    rows, info, page = client.predict("(all)", "(all)", "(all)", "api-tagged", "(all)", "", "", "", NOT_TRAINING,
                                      "1", 25, api_name="/search_failures")
    assert [r[0] for r in rows["data"]] == [failure_id] and "1 failure" in info
    assert services.bank.get(failure_id)["notes"] == "seen through the API"
    rows, info, page = client.predict("(all)", "(all)", "(all)", "", "(all)", "", "", "", NOT_TRAINING,
                                      "1e20", 25, api_name="/search_failures")
    assert page == "1" and rows["data"]  # a page past the end is clamped, not an overflow


def test_two_clients_keep_their_own_episodes(live_app):
    _, url = live_app
    alice, bob = Client(url, verbose=False), Client(url, verbose=False)
    start(alice, family="negation_arithmetic", seed=1)
    start(bob, family="false_claim", level="medium", seed=2)
    alice_state = alice.predict("Answer: 99999", api_name="/answer")[3]
    bob_state = bob.predict("Answer: 99998", api_name="/answer")[3]
    assert alice_state["task"]["family"] == "negation_arithmetic" and bob_state["task"]["family"] == "false_claim"
    assert [t["response"] for t in alice_state["history"]] == ["Answer: 99999"]
    assert [t["response"] for t in bob_state["history"]] == ["Answer: 99998"]


def test_curriculum_training_and_charts_are_scriptable(client):
    message = client.predict("20", "0.2", "0.9", "8", "0.2", "0.8", "0.3", "", api_name="/save_curriculum")
    assert message.startswith("⚠ Not saved") and "“Demote at (accuracy)”" in message
    assert "Window (answers) is blank" in client.predict("", "0.8", "0.3", "8", "0.2", "0.8", "0.3", "",
                                                         api_name="/save_curriculum")
    assert "pinned" in client.predict("plain_arithmetic", "medium", "", api_name="/pin_level")
    assert len(client.predict(None, api_name="/refresh_charts")) == 9
    live, *_ = client.predict(None, api_name="/training_progress")
    assert "No training run yet" in live  # this module's app never trains
