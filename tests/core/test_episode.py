import json

import pytest

from alice_app.episode import FINAL_PROMPT, REFLECTION_PROMPT, SYSTEM_PROMPT, Episode, advance, new_episode
from alice_app.tasks import generate_task
from alice_app.types import TURN_KINDS
from alice_app.verify import VerifierStack

STACK = VerifierStack()


def _step(episode: Episode, response: str) -> Episode:
    return advance(episode, response, STACK.verify(episode.task, response))


def test_an_unsolved_episode_plays_all_five_turns():
    task = generate_task("negation_arithmetic", "easy", 4)
    distractor = task.metadata["distractors"][0]
    episode = new_episode(task)
    assert episode.next_prompt() == task.prompt and episode.next_kind == "attempt"
    episode = _step(episode, f"Answer: {distractor}")
    assert "told you to ignore" in episode.next_prompt() and episode.next_kind == "feedback"
    episode = _step(episode, f"Answer: {distractor}")  # repeats: penalised
    assert episode.turns[1].reward.components["repetition"] < 0
    assert episode.next_prompt() == REFLECTION_PROMPT
    episode = _step(episode, "I am not sure.")
    assert episode.next_prompt().startswith("Hint: " + task.hint)
    episode = _step(episode, "Answer: 0")
    assert episode.next_prompt() == FINAL_PROMPT and episode.next_kind == "final"
    episode = _step(episode, "Still 0")
    assert episode.done and not episode.solved and episode.next_kind is None
    assert [turn.kind for turn in episode.turns] == list(TURN_KINDS)
    assert [turn.index for turn in episode.turns] == [1, 2, 3, 4, 5]
    with pytest.raises(ValueError, match="over"):
        _step(episode, "Answer: 1")


def test_an_episode_ends_as_soon_as_it_is_solved():
    task = generate_task("false_claim", "medium", 2)
    episode = _step(_step(new_episode(task), "Answer: 0"), f"Answer: {task.answer}")
    assert episode.done and episode.solved and len(episode.turns) == 2
    assert episode.turns[1].reward.total > episode.turns[0].reward.total
    assert episode.total_reward == pytest.approx(sum(t.reward.total for t in episode.turns))


def test_an_episode_cut_to_fewer_turns_ends_there_and_keeps_its_limit_through_json():
    task = generate_task("negation_arithmetic", "easy", 4)
    one = _step(new_episode(task, turns=1), "Answer: 0")
    assert one.done and not one.solved and len(one.turns) == 1 and one.next_kind is None
    assert one.messages()[-1]["role"] == "assistant"  # nothing more is asked
    two = _step(new_episode(task, turns=2), "Answer: 0")
    assert not two.done and two.next_kind == "feedback"
    assert _step(two, "Answer: 1").done
    restored = Episode.from_dict(json.loads(json.dumps(two.to_dict())))
    assert restored == two and restored.turn_limit == 2
    assert Episode.from_dict({"task": task.to_dict()}).turn_limit == len(TURN_KINDS)  # stored before the limit
    for bad in (0, 6, True, 1.0):
        with pytest.raises(ValueError, match="1 to 5 turns"):
            new_episode(task, turns=bad)
    with pytest.raises(ValueError, match="1 to 5 turns"):
        Episode.from_dict({**two.to_dict(), "turn_limit": "2"})


def test_messages_alternate_for_the_policy():
    task = generate_task("plain_arithmetic", "easy", 1)
    episode = _step(_step(new_episode(task), "Answer: 0"), "Answer: 1")
    messages = episode.messages()
    assert messages[0] == {"role": "system", "content": SYSTEM_PROMPT}
    assert [m["role"] for m in messages[1:]] == ["user", "assistant", "user", "assistant", "user"]
    assert messages[1]["content"] == task.prompt and messages[2]["content"] == "Answer: 0"
    assert messages[-1]["content"] == REFLECTION_PROMPT


def test_round_trips_through_json():
    task = generate_task("negated_comparison", "hard", 9)
    episode = _step(_step(new_episode(task), "no idea"), "Answer: 3")
    restored = Episode.from_dict(json.loads(json.dumps(episode.to_dict())))
    assert restored == episode
    assert restored.next_prompt() == episode.next_prompt()


def test_a_text_answer_task_is_asked_for_an_answer_not_a_number():
    from dataclasses import replace

    from alice_app.episode import TEXT_SYSTEM_PROMPT

    task = generate_task("negation_arithmetic", "easy", 1)
    text_task = replace(task, answer="CAT,DOG", metadata={**task.metadata, "answer_kind": "text"})
    assert new_episode(task).messages()[0]["content"] == SYSTEM_PROMPT
    system = new_episode(text_task).messages()[0]["content"]
    assert system == TEXT_SYSTEM_PROMPT and "'Answer: <answer>'" in system and "<number>" not in system
