"""Episode-mode prompts, with a stand-in policy (unit test of the prompt builder; the real policy
plays it in test_training_slow.py)."""
import json

from alice_app.curriculum import CurriculumConfig
from alice_app.episode import FINAL_PROMPT, REFLECTION_PROMPT
from alice_app.training.episodes import EpisodeFeed
from alice_app.training.feed import CoevolvingFeed


class ScriptedPolicy:
    def __init__(self, answer_for):
        self.answer_for = answer_for
        self.calls = 0

    def generate(self, messages_batch, n=1, temperature=0.0, max_tokens=64):
        self.calls += 1
        return [[self.answer_for(chat)] * n for chat in messages_batch]


def _episode_feed(services, policy):
    services.curriculum.save_config(CurriculumConfig(repair_mix=0.0))
    base = CoevolvingFeed(["negation_arithmetic"], services.curriculum, services.bank, seed=3)
    return EpisodeFeed(base, services.verifier, lambda: policy)


def test_the_final_attempt_prompt_holds_the_policys_wrong_attempts_feedback_reflection_and_hint(services):
    policy = ScriptedPolicy(lambda chat: "Answer: 999")
    item = _episode_feed(services, policy).draw()
    contents = [m["content"] for m in item.messages]
    roles = [m["role"] for m in item.messages]
    assert roles == ["system"] + ["user", "assistant"] * 4 + ["user"]
    assert contents[1] == item.task.prompt and contents[2] == "Answer: 999"
    assert any("Try again" in c for c in contents[3:5])  # the verifier's feedback
    assert REFLECTION_PROMPT in contents and any(item.task.hint in c for c in contents)
    assert contents[-1] == FINAL_PROMPT
    row = item.to_row()
    assert row["turn_index"] == 5 and json.loads(row["previous_answers"]) == ["999"] * 4
    assert row["source"] == "episode" and row["failure_id"] == -1
    assert policy.calls == 4


def test_tasks_solved_before_the_final_turn_are_replaced(services):
    first_prompt = []

    def answer(chat):  # right on the first task drawn, wrong on every later one
        prompt = chat[1]["content"]
        if not first_prompt:
            first_prompt.append(prompt)
        task = next(t for t in feed.base.known_tasks.values() if t.prompt == prompt)
        return f"Answer: {task.answer}" if prompt == first_prompt[0] else "Answer: 999"

    feed = _episode_feed(services, ScriptedPolicy(answer))
    item = feed.draw()
    assert feed.solved_early == 1
    assert item.turn_index == 5 and item.task.prompt != first_prompt[0]
