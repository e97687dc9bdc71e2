"""The chats the policy is trained on; the same wording as an episode's turns, so what is
learned in training is what the hunt, the evaluation and the UI ask."""
from __future__ import annotations

from alice_app.episode import new_episode
from alice_app.types import Task


def task_messages(task: Task) -> list[dict[str, str]]:
    """Turn 1 of an episode: the system prompt and the task."""
    return new_episode(task).messages()
