"""Episodes over the real server: OpenEnv's client, 20 concurrent WebSocket sessions, plain HTTP."""
from __future__ import annotations

import asyncio
import json
import logging

from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

from alice_app.server.client import AliceEnv
from alice_app.server.models import AliceAction
from alice_app.tasks.registry import generate_task

FAMILY, LEVEL = "negation_arithmetic", "easy"


def wrong_answer(seed: int, family: str = FAMILY, level: str = LEVEL) -> str:
    """A scripted answer that is certainly wrong: the right one plus 1000."""
    task = generate_task(family, level, seed)
    return f"Answer: {int(float(task.answer)) + 1000}"


def test_openenv_client_plays_a_five_turn_episode(server_url, services):
    with AliceEnv(base_url=server_url).sync() as env:
        result = env.reset(family=FAMILY, level=LEVEL, seed=3, mode="hunt")
        first = result.observation
        assert (first.task_id, first.turn, result.done) == (generate_task(FAMILY, LEVEL, 3).id, 0, False)
        assert first.prompt and first.messages
        rewards = []
        for turn in range(1, 6):
            assert not result.done, f"episode ended early at turn {turn - 1}"
            result = env.step(AliceAction(response=wrong_answer(3)))
            assert result.observation.turn == turn
            assert result.observation.verdict["is_correct"] is False
            rewards.append(result.reward)
        state = env.state()
    assert result.done and result.observation.kind is None
    assert all(isinstance(r, float) for r in rewards) and result.observation.reward_components
    assert (state.turn, state.step_count, state.done, state.solved) == (5, 5, True, False)
    assert state.episode_id == first.episode_id and len(state.history) == 5
    banked = services.bank.query(family=FAMILY, page_size=10)
    assert [row["task_id"] for row in banked.rows] == [first.task_id]


def test_a_right_answer_ends_the_episode_with_a_higher_reward(server_url):
    task = generate_task(FAMILY, LEVEL, 4)
    with AliceEnv(base_url=server_url).sync() as env:
        env.reset(family=FAMILY, level=LEVEL, seed=4, mode="hunt")
        wrong = env.step(wrong_answer(4))  # the client also takes the bare answer text
        right = env.step(f"Answer: {task.answer}")
    assert not wrong.done and right.done
    assert right.observation.verdict["is_correct"] is True
    assert right.reward > wrong.reward


async def play_wrong_episode(url: str, seed: int) -> dict:
    async with AliceEnv(base_url=url) as env:
        result = await env.reset(family=FAMILY, level=LEVEL, seed=seed, mode="hunt")
        episode_id = result.observation.episode_id
        while not result.done:
            result = await env.step(AliceAction(response=wrong_answer(seed)))
            await asyncio.sleep(0)  # let the other sessions interleave their steps
        state = await env.state()
    return {"seed": seed, "episode_id": episode_id, "task_id": result.observation.task_id,
            "turn": result.observation.turn, "state": state}


def test_twenty_concurrent_sessions_keep_their_own_episodes(server_url, services):
    seeds = list(range(100, 120))

    async def play_all():
        return await asyncio.gather(*(play_wrong_episode(server_url, seed) for seed in seeds))

    outcomes = asyncio.run(play_all())
    for outcome in outcomes:
        expected_id = generate_task(FAMILY, LEVEL, outcome["seed"]).id
        state = outcome["state"]
        assert outcome["task_id"] == expected_id == state.task["id"]
        assert outcome["turn"] == state.turn == 5 and state.done
        assert state.episode_id == outcome["episode_id"]
        assert [turn["response"] for turn in state.history] == [wrong_answer(outcome["seed"])] * 5
    assert len({o["episode_id"] for o in outcomes}) == len(seeds)
    rows = services.bank.query(family=FAMILY, page_size=100).rows
    assert sorted(row["task_id"] for row in rows) == sorted(generate_task(FAMILY, LEVEL, s).id for s in seeds)
    assert all(row["times_seen"] == 1 for row in rows)


async def reset_when_a_slot_frees(url: str, patience_s: float = 10.0):
    """The server frees a slot once it has processed the close; retry until then."""
    deadline = asyncio.get_running_loop().time() + patience_s
    while True:
        try:
            async with AliceEnv(base_url=url) as env:
                return await env.reset(family=FAMILY, seed=3)
        except (RuntimeError, ConnectionError, ConnectionClosed):
            if asyncio.get_running_loop().time() > deadline:
                raise
            await asyncio.sleep(0.05)


def test_sessions_beyond_the_limit_are_refused_until_one_closes(settings, serve):
    from alice_app.server.asgi import create_app
    from alice_app.services import Services

    services = Services.from_settings(settings.with_overrides(max_sessions=2))

    async def scenario(url: str) -> None:
        first, second = AliceEnv(base_url=url), AliceEnv(base_url=url)
        await first.reset(family=FAMILY, seed=1)
        await second.reset(family=FAMILY, seed=2)
        # The server answers a connection beyond the limit with one error message, then closes.
        async with ws_connect(url.replace("http", "ws", 1) + "/ws") as refused:
            refusal = json.loads(await refused.recv())
        assert refusal["type"] == "error" and refusal["data"]["code"] == "CAPACITY_REACHED"
        assert refusal["data"]["max_sessions"] == 2
        await first.close()
        assert (await reset_when_a_slot_frees(url)).observation.turn == 0
        await second.close()

    with serve(create_app(services, mount_ui=False)) as url:
        asyncio.run(scenario(url))


def test_http_episode_is_found_again_by_its_id(http):
    first = http.post("/reset", json={"family": FAMILY, "level": LEVEL, "seed": 5, "mode": "hunt"}).json()
    episode_id = first["observation"]["episode_id"]
    assert first["done"] is False and episode_id
    for turn in range(1, 6):
        step = http.post("/step", json={"action": {"response": wrong_answer(5)}, "episode_id": episode_id})
        assert step.status_code == 200, step.text
        assert step.json()["observation"]["turn"] == turn
    assert step.json()["done"] is True and step.json()["reward"] is not None
    state = http.get("/state", params={"episode_id": episode_id}).json()
    assert (state["episode_id"], state["turn"], state["done"]) == (episode_id, 5, True)


def test_health_schema_and_metadata(http):
    assert http.get("/health").json()["status"] == "healthy"
    schema = http.get("/schema").json()
    assert schema["action"]["properties"]["response"]["maxLength"] > 0
    assert "episode_id" in schema["observation"]["properties"]
    assert {"turn", "history", "solved"} <= set(schema["state"]["properties"])
    assert http.get("/metadata").json()["name"] == "ALICE"


def test_a_normal_client_close_logs_no_server_error(server_url):
    records: list[logging.LogRecord] = []
    handler = logging.Handler(level=logging.ERROR)
    handler.emit = records.append
    logger = logging.getLogger("uvicorn.error")
    logger.addHandler(handler)
    try:
        async def one_episode():
            async with AliceEnv(base_url=server_url) as env:
                await env.reset(family=FAMILY, seed=8)
            await asyncio.sleep(0.3)  # the server closes its side after the client has gone

        asyncio.run(one_episode())
    finally:
        logger.removeHandler(handler)
    assert not records, [r.getMessage() for r in records]


def test_a_client_sends_samples_and_reads_the_confidence(server_url, services):
    task = generate_task(FAMILY, LEVEL, 6)
    with AliceEnv(base_url=server_url).sync() as env:
        env.reset(family=FAMILY, level=LEVEL, seed=6, mode="hunt")
        spread = [f"Answer: {int(task.answer) + d}" for d in (0, 5, 9, 13)]
        result = env.step(AliceAction(response=f"Answer: {task.answer}", samples=spread))
    assert result.done and result.observation.verdict["confidence"] < 0.5
    rows = services.bank.query(page_size=5).rows
    assert [row["mode"] for row in rows] == ["unstable"]


def test_a_reset_can_ask_for_a_free_wording(http):
    from alice_app.tasks import generate_task

    reply = http.post("/reset", json={"family": "false_claim", "level": "easy", "seed": 5, "mode": "hunt",
                                      "wording": "free"}).json()
    assert reply["observation"]["prompt"] == generate_task("false_claim", "easy", 5, wording="free").prompt


def test_a_reset_can_cut_the_episode_to_its_first_attempt(http, services):
    reply = http.post("/reset", json={"family": "false_claim", "level": "easy", "seed": 5, "mode": "hunt",
                                      "turns": 1}).json()
    episode_id = reply["observation"]["episode_id"]
    stepped = http.post("/step", json={"action": {"response": "Answer: -987"}, "episode_id": episode_id}).json()
    assert stepped["done"] and stepped["observation"]["turn"] == 1 and not stepped["observation"]["info"]["solved"]
    assert services.bank.count() == 1  # the only attempt was wrong: banked, as any unsolved episode
