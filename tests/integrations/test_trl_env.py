"""The TRL adapter without a model: what GRPOTrainer calls (reset(**row), the answer tool,
get_reward, the text fallback reward), in process and over the OpenEnv client."""
from __future__ import annotations

import json

import pytest

from alice_app.integrations.backends import reset_options
from alice_app.integrations.rollout import alice_dataset
from alice_app.integrations.trl_env import OVER, AliceTRLEnvironment, make_environment_factory, text_answer_reward
from alice_app.tasks.registry import generate_task

TASK = generate_task("plain_arithmetic", "easy", 7)
ROW = {"prompt": [{"role": "user", "content": ""}], "task": json.dumps(TASK.to_dict()), "source": "static"}


def test_reset_options_take_the_task_and_drop_trainer_columns():
    assert reset_options(ROW) == {"task": TASK.to_dict()}
    assert reset_options({"prompt": "x", "family": "plain_arithmetic", "seed": 3, "level": None}) == {
        "family": "plain_arithmetic", "seed": 3}


def test_the_answer_tool_has_the_schema_trl_builds_from_its_docstring():
    from transformers.utils import get_json_schema

    schema = get_json_schema(AliceTRLEnvironment.answer)["function"]
    assert schema["name"] == "answer" and schema["parameters"]["required"] == ["answer"]
    assert "7" in schema["parameters"]["properties"]["answer"]["description"]
    public = [name for name in vars(AliceTRLEnvironment) if not name.startswith("_") and callable(
        getattr(AliceTRLEnvironment, name))]
    assert sorted(public) == ["answer", "get_reward", "reset"]  # TRL turns every other public method into a tool


def play_with_the_tool(env):
    prompt = env.reset(**ROW)
    assert prompt == TASK.prompt and isinstance(prompt, str)
    reply = env.answer("1")  # wrong: feedback and another try
    assert "Try again" in reply and env.get_reward() <= 0.1
    assert env.answer(TASK.answer) == "Correct. The episode is over."
    assert env.get_reward() == pytest.approx(1.0 + 0.5 * 3 / 4 + 0.1)  # turn 2, "nothing but the answer"
    assert env.answer(TASK.answer) == OVER
    assert text_answer_reward([[{"role": "assistant", "content": "Answer: 1"}]], environments=[env]) == [None]


def test_in_process_episode_through_the_tool(services):
    play_with_the_tool(make_environment_factory(services)())


def test_over_the_openenv_client_the_same_episode(server_url):
    env = make_environment_factory(base_url=server_url)()
    play_with_the_tool(env)
    env._backend.close()


def test_an_untooled_completion_is_played_as_text_and_banked(services):
    env = make_environment_factory(services)()
    env.reset(**ROW)
    assert text_answer_reward([[{"role": "assistant", "content": f"So it is {TASK.answer}.\nAnswer: {TASK.answer}"}]],
                              environments=[env]) == [pytest.approx(1.6)]
    assert env.get_reward() == 0.0  # no tool answer: nothing counted twice
    assert env.observation["done"] and env.observation["verdict"]["is_correct"]
    wrong = make_environment_factory(services)()
    wrong.reset(family="plain_arithmetic", level="easy", seed=7, mode="hunt")
    for _ in range(5):
        wrong.answer("0")
    assert services.bank.count() == 1  # the failed episode reached the failure bank


def test_factory_and_fallback_reward_say_what_is_missing(services):
    with pytest.raises(ValueError, match="exactly one"):
        make_environment_factory()
    with pytest.raises(ValueError, match="environment_factory"):
        text_answer_reward(["Answer: 3"])
    with pytest.raises(ValueError, match="reset"):
        make_environment_factory(services)().answer("3")


def test_alice_dataset_rows_carry_the_task_and_leave_the_user_turn_to_reset():
    rows = alice_dataset(["plain_arithmetic"], 4, seed=1)
    task = json.loads(rows[0]["task"])
    assert rows[0]["prompt"][-1]["content"] == task["prompt"] and rows[0]["prompt"][0]["role"] == "system"
    assert alice_dataset(["plain_arithmetic"], 4, seed=1, for_environment=True)[0]["prompt"][-1]["content"] == ""
