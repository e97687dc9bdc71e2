"""Bad requests get a 4xx with a message that says what is wrong, and leave the bank untouched."""
from __future__ import annotations

import asyncio

import pytest

from alice_app.server.client import AliceEnv
from alice_app.server.models import MAX_RESPONSE_CHARS

ONE_MB = "7" * 1_000_000


@pytest.fixture
def episode_id(http) -> str:
    reply = http.post("/reset", json={"family": "negation_arithmetic", "level": "easy", "seed": 9})
    assert reply.status_code == 200, reply.text
    return reply.json()["observation"]["episode_id"]


@pytest.fixture(autouse=True)
def bank_stays_empty(services):
    yield
    assert services.bank.query(page_size=1).total == 0, "a bad request wrote to the failure bank"


def detail_text(reply) -> str:
    return str(reply.json()["detail"])


@pytest.mark.parametrize(
    ("body", "status", "needle"),
    [
        ({"action": {}}, 422, "response"),  # missing field
        ({"action": {"response": 123}}, 422, "string"),  # wrong type
        ({"action": {"response": ["7"]}}, 422, "string"),
        ({"action": {"response": "7", "confidence": 1}}, 422, "confidence"),  # unknown field
        ({}, 422, "action"),  # no action at all
        ({"action": {"response": "7"}}, 409, "call reset first"),  # no episode named
        ({"action": {"response": "7"}, "episode_id": "nope"}, 404, "unknown episode_id"),
    ],
)
def test_bad_step_requests(http, body, status, needle):
    reply = http.post("/step", json=body)
    assert reply.status_code == status, reply.text
    assert needle in detail_text(reply)


def test_a_one_megabyte_response_is_refused_briefly(http, episode_id):
    reply = http.post("/step", json={"action": {"response": ONE_MB}, "episode_id": episode_id})
    assert reply.status_code == 413  # refused from its Content-Length, before the megabyte is read
    assert f"{MAX_RESPONSE_CHARS:,}" in detail_text(reply)
    just_over = http.post("/step", json={"action": {"response": "7" * (MAX_RESPONSE_CHARS + 1)},
                                         "episode_id": episode_id})
    assert just_over.status_code == 422 and str(MAX_RESPONSE_CHARS) in detail_text(just_over)
    assert len(reply.content) < 5_000, "the error must not echo the megabyte back"
    state = http.get("/state", params={"episode_id": episode_id}).json()
    assert state["turn"] == 0, "the refused answer must not count as a turn"


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ({"family": "no_such_family"}, "negation_arithmetic"),  # the message lists real families
        ({"level": "impossible"}, "easy"),
        ({"mode": "sideways"}, "hunt"),
        ({"seed": -1}, "greater than or equal to 0"),
        ({"seed": "abc"}, "integer"),
        ({"seed": 10**30}, "2^63 - 1"),  # the one seed bound, with its message
        ({"mode": "repair"}, "no failures"),  # nothing banked yet to repair
        ({"wording": "poetic"}, "template"),
        ({"family": "rg_basic_arithmetic", "wording": "free"}, "has no free wording"),
        ({"turns": 0}, "greater than or equal to 1"),
        ({"turns": 6}, "less than or equal to 5"),
        ({"turns": "1"}, "integer"),
    ],
)
def test_bad_reset_requests(http, body, needle):
    reply = http.post("/reset", json=body)
    assert reply.status_code == 422, reply.text
    assert needle in detail_text(reply)


def test_bad_json_and_unknown_state(http):
    reply = http.post("/step", content=b"{not json", headers={"content-type": "application/json"})
    assert reply.status_code == 422
    assert http.get("/state", params={"episode_id": "nope"}).status_code == 404


def test_stepping_a_finished_episode_is_a_conflict(http, services):
    reset = http.post("/reset", json={"family": "negation_arithmetic", "level": "easy", "seed": 11}).json()
    episode_id = reset["observation"]["episode_id"]
    from alice_app.tasks.registry import generate_task

    right = f"Answer: {generate_task('negation_arithmetic', 'easy', 11).answer}"
    assert http.post("/step", json={"action": {"response": right}, "episode_id": episode_id}).json()["done"]
    again = http.post("/step", json={"action": {"response": right}, "episode_id": episode_id})
    assert again.status_code == 409 and "is over" in detail_text(again)


def test_websocket_errors_keep_the_session_usable(server_url):
    async def scenario():
        async with AliceEnv(base_url=server_url) as env:
            with pytest.raises(RuntimeError, match="call reset first"):
                await env.step("7")
            with pytest.raises(RuntimeError, match="unknown task family"):
                await env.reset(family="no_such_family")
            await env.reset(family="negation_arithmetic", seed=12)
            with pytest.raises(RuntimeError, match="VALIDATION_ERROR"):
                await env._send_and_receive({"type": "step", "data": {"response": ONE_MB}})
            with pytest.raises(RuntimeError, match="VALIDATION_ERROR"):
                await env._send_and_receive({"type": "step", "data": {"response": 5}})
            return await env.state()

    state = asyncio.run(scenario())
    assert state.turn == 0 and not state.done


@pytest.mark.parametrize(("samples", "needle"), [(["7"], "2 to 16"), (["7"] * 17, "16"), ([1, 2], "string")])
def test_bad_samples_are_refused(http, episode_id, samples, needle):
    reply = http.post("/step", json={"action": {"response": "7", "samples": samples}, "episode_id": episode_id})
    assert reply.status_code == 422 and needle in detail_text(reply), reply.text
