"""What a public deployment needs: bounded sessions and writes, episodes bound to their creator,
no answer before the end, an optional API token, and clear errors for odd input or a bad disk."""
from __future__ import annotations

import asyncio
import json
import logging
import time

import httpx
import pytest
from websockets.asyncio.client import connect as ws_connect

from alice_app.server.asgi import create_app
from alice_app.server.client import AliceEnv
from alice_app.server.guard import client_key
from alice_app.services import Services
from alice_app.store import db as store_db
from alice_app.tasks.registry import generate_task

FAMILY = "negation_arithmetic"
RESET = {"family": FAMILY, "level": "easy", "seed": 4, "mode": "hunt"}


def reset(http, headers=None, **body) -> httpx.Response:
    return http.post("/reset", json={**RESET, **body}, headers=headers)


def step(http, episode_id, response="Answer: 1000", headers=None) -> httpx.Response:
    return http.post("/step", json={"action": {"response": response}, "episode_id": episode_id}, headers=headers)


@pytest.fixture
def served(settings, serve):
    """``with served(**overrides) as http:`` a server with other settings, and an HTTP client."""
    from contextlib import contextmanager

    @contextmanager
    def start(**overrides):
        services = Services.from_settings(settings.with_overrides(**overrides))
        with serve(create_app(services, mount_ui=False)) as url, httpx.Client(base_url=url, timeout=30) as http:
            http.services = services
            yield http

    return start


def test_a_seed_beyond_two_to_the_63_is_a_422_and_writes_nothing(http, services):
    reply = reset(http, seed=10**30)
    assert reply.status_code == 422 and "2^63 - 1" in str(reply.json()["detail"])
    assert services.bank.failure_map() == []


def test_a_lone_surrogate_in_a_response_is_a_422_not_a_500(http):
    episode_id = reset(http).json()["observation"]["episode_id"]
    body = b'{"action": {"response": "\\ud800"}, "episode_id": "' + episode_id.encode() + b'"}'
    reply = http.post("/step", content=body, headers={"content-type": "application/json"})
    assert reply.status_code == 422, reply.text
    assert http.get("/state", params={"episode_id": episode_id}).json()["turn"] == 0


def test_reset_ignores_and_names_options_it_does_not_know(http):
    reply = reset(http, prompt="a dataset row's prompt, as TRL passes it", famly="x")
    assert reply.status_code == 200, reply.text
    assert reply.json()["observation"]["info"]["ignored_options"] == ["famly", "prompt"]


def test_families_registered_at_run_time_are_reachable(http, monkeypatch):
    from alice_app.tasks import registry
    from alice_app.tasks.reasoning_gym import BASIC_ARITHMETIC_LEVELS, ReasoningGymConfig, register_dataset

    monkeypatch.setattr(registry, "_FAMILIES", dict(registry._FAMILIES))  # undone after the test
    register_dataset("rg_late_arithmetic", ReasoningGymConfig("basic_arithmetic", BASIC_ARITHMETIC_LEVELS),
                     "registered after the server started")
    reply = http.post("/reset", json={"family": "rg_late_arithmetic", "level": "easy", "mode": "hunt"})
    assert reply.status_code == 200, reply.text
    assert reply.json()["observation"]["family"] == "rg_late_arithmetic"


def test_http_mcp_cannot_create_sessions_that_lock_websocket_clients_out(settings, serve):
    services = Services.from_settings(settings.with_overrides(max_sessions=2))
    create = {"jsonrpc": "2.0", "method": "openenv/session/create", "params": {}, "id": 1}
    with serve(create_app(services, mount_ui=False)) as url:
        for _ in range(8):
            reply = httpx.post(url + "/mcp", json=create, timeout=30).json()
            assert "error" in reply and "WebSocket" in reply["error"]["message"]
        assert httpx.post(url + "/mcp", json={**create, "method": "tools/list"}, timeout=30).status_code == 200

        async def play():
            async with AliceEnv(base_url=url) as env:
                return await env.reset(family=FAMILY, seed=1)

        assert asyncio.run(play()).observation.turn == 0


def test_state_hides_the_answer_until_the_episode_is_over(http):
    episode_id = reset(http).json()["observation"]["episode_id"]
    task = http.get("/state", params={"episode_id": episode_id}).json()["task"]
    assert task["prompt"] and "answer" not in task and "metadata" not in task
    answer = generate_task(FAMILY, "easy", 4).answer
    step(http, episode_id, f"Answer: {answer}")
    assert http.get("/state", params={"episode_id": episode_id}).json()["task"]["answer"] == answer


def test_an_episode_cannot_be_taken_over_by_another_client(served):
    alice, mallory = {"x-forwarded-for": "10.0.0.1"}, {"x-forwarded-for": "10.0.0.2"}
    with served(behind_proxy=True) as http:
        episode_id = reset(http, alice).json()["observation"]["episode_id"]
        assert len(episode_id) >= 32  # 128 random bits: not guessable
        assert reset(http, mallory, episode_id=episode_id).status_code == 409
        assert step(http, episode_id, headers=mallory).status_code == 404
        assert http.get("/state", params={"episode_id": episode_id}, headers=mallory).status_code == 404
        for _ in range(40):  # a flood of resets evicts only the flooder's own episodes
            reset(http, mallory)
        assert step(http, episode_id, headers=alice).status_code == 200


def test_writes_beyond_the_budget_get_a_429_with_retry_after(served):
    with served(writes_per_minute=3) as http:
        assert [reset(http).status_code for _ in range(3)] == [200] * 3
        refused = reset(http)
        assert refused.status_code == 429 and "write budget" in refused.json()["detail"]
        assert int(refused.headers["retry-after"]) >= 1
        assert http.get("/health").status_code == 200  # reads are not writes


def test_the_api_token_guards_the_openenv_routes_only(served):
    with served(api_token="s3cret") as http:
        refused = reset(http)
        assert refused.status_code == 401 and "ALICE_API_TOKEN" in refused.json()["detail"]
        assert reset(http, {"authorization": "Bearer s3cret"}).status_code == 200
        assert http.get("/health").status_code == 200
        base = str(http.base_url)

        async def sessions():
            async with AliceEnv(base_url=base, api_token="s3cret") as env:
                assert (await env.reset(family=FAMILY, seed=2)).observation.turn == 0
            async with ws_connect(base.replace("http", "ws", 1) + "/ws") as anonymous:
                return json.loads(await anonymous.recv())

        refusal = asyncio.run(sessions())
        assert refusal["data"]["code"] == "UNAUTHORIZED" and "ALICE_API_TOKEN" in refusal["data"]["message"]


def test_a_binary_websocket_frame_gets_an_error_and_the_session_lives_on(server_url):
    async def scenario():
        async with ws_connect(server_url.replace("http", "ws", 1) + "/ws") as ws:
            await ws.send(b"\x00\xff binary")
            error = json.loads(await ws.recv())
            await ws.send(json.dumps({"type": "reset", "data": {"family": FAMILY, "seed": 3}}).encode())
            return error, json.loads(await ws.recv())

    error, observation = asyncio.run(scenario())
    assert error["type"] == "error" and "JSON" in error["data"]["message"]
    assert observation["type"] == "observation"


@pytest.mark.timeout(60)
def test_idle_sessions_expire_and_free_their_slot(settings, serve):
    services = Services.from_settings(settings.with_overrides(max_sessions=1, session_idle_s=1.0))

    async def scenario(url: str) -> dict:
        idle = AliceEnv(base_url=url)
        await idle.reset(family=FAMILY, seed=1)  # ... and never heard from again
        deadline = time.monotonic() + 30
        while True:
            async with ws_connect(url.replace("http", "ws", 1) + "/ws") as ws:
                await ws.send(json.dumps({"type": "reset", "data": {"family": FAMILY, "seed": 2}}))
                reply = json.loads(await ws.recv())
            if reply["type"] == "observation" or time.monotonic() > deadline:
                return reply
            await asyncio.sleep(1)

    with serve(create_app(services, mount_ui=False)) as url:
        assert asyncio.run(scenario(url))["type"] == "observation"


def test_a_storage_error_is_one_log_line_and_a_503(http, services, caplog):
    episode_id = reset(http).json()["observation"]["episode_id"]
    for _ in range(4):
        step(http, episode_id)
    services.db.execute("PRAGMA query_only = ON")  # every write now fails, as on a read-only disk
    try:
        with caplog.at_level(logging.ERROR):
            reply = step(http, episode_id)
    finally:
        services.db.execute("PRAGMA query_only = OFF")
    assert reply.status_code == 503 and "storage unavailable" in reply.json()["detail"]
    lines = [r for r in caplog.records if r.name == "alice_app.server"]
    assert len(lines) == 1 and "\n" not in lines[0].getMessage()
    assert services.bank.failure_map() == []  # the episode's outcome was written whole or not at all


def test_health_reports_a_full_disk(http, monkeypatch):
    assert http.get("/health").json() == {"status": "healthy"}
    monkeypatch.setattr(store_db, "MIN_FREE_BYTES", 1 << 62)
    reply = http.get("/health")
    assert reply.status_code == 503 and "nearly full" in reply.json()["detail"]


def test_a_client_over_the_session_limit_reads_capacity_reached(settings, serve):
    services = Services.from_settings(settings.with_overrides(max_sessions=1))

    async def scenario(url: str) -> None:
        async with AliceEnv(base_url=url) as first:
            await first.reset(family=FAMILY, seed=1)
            async with AliceEnv(base_url=url) as second:
                with pytest.raises(RuntimeError, match="CAPACITY_REACHED"):
                    await second.reset(family=FAMILY, seed=2)

    with serve(create_app(services, mount_ui=False)) as url:
        asyncio.run(scenario(url))


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_uvicorn_exits_promptly_on_sigterm_after_latex_answers(tmp_path):
    import os
    import signal
    import socket
    import subprocess
    import sys
    from pathlib import Path

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "ALICE_DATA_DIR": str(tmp_path / "data"), "PYTHONPATH": str(root)}
    server = subprocess.Popen([sys.executable, "-m", "uvicorn", "alice_app.server:app", "--host", "127.0.0.1",
                               "--port", str(port), "--log-level", "info"], env=env, cwd=root,
                              stderr=subprocess.PIPE, text=True)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(url + "/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.5)
        with httpx.Client(base_url=url, timeout=60) as http:
            episode_id = reset(http).json()["observation"]["episode_id"]
            for answer in ("$100000000!$", "Answer: \\sqrt{2^{2^{64}}}", "$\\frac{1}{2}$"):
                start = time.perf_counter()
                assert step(http, episode_id, answer).status_code == 200
                assert time.perf_counter() - start < 10  # the worker's start-up at worst, never sympy's hours
        server.send_signal(signal.SIGTERM)
        _, log = server.communicate(timeout=15)
        # uvicorn shuts down gracefully, then re-raises the signal: exit status -15 is the normal end
        assert server.returncode in (0, -signal.SIGTERM) and "Finished server process" in log
    finally:
        if server.poll() is None:
            server.kill()


def test_the_guard_reads_the_proxy_s_entry_of_the_scope():
    scope = {"headers": [(b"x-forwarded-for", b"10.9.9.9, 2001:db8:1:2:aaaa::1")], "client": ("10.0.0.9", 1)}
    assert client_key(scope, behind_proxy=True) == "2001:db8:1:2::/64"
    assert client_key(scope, behind_proxy=False) == "10.0.0.9"
