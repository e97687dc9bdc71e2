"""The chats the policy is trained on; the same wording as an episode's turns, so what is
learned in training is what the hunt, the evaluation and the UI ask."""
from __future__ import annotations

import hashlib
from typing import Callable

from alice_app.episode import new_episode
from alice_app.tasks._common import ANSWER_FORMAT
from alice_app.types import Task


def task_messages(task: Task) -> list[dict[str, str]]:
    """Turn 1 of an episode: the system prompt and the task."""
    return new_episode(task).messages()


def without_format(task: Task, share: float) -> bool:
    """Whether ``task`` is among the ``share`` of training tasks shown without the format line
    (decided by a hash of its id, so a task always gets the same wording)."""
    bucket = int(hashlib.sha1(task.id.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return bucket < share


def training_messages(no_format_share: float = 0.0) -> Callable[[Task], list[dict[str, str]]]:
    """``task_messages``, except that a share of the tasks lose the "Answer: <number>" line."""

    def build(task: Task) -> list[dict[str, str]]:
        messages = task_messages(task)
        if no_format_share and without_format(task, no_format_share):
            last = messages[-1]
            messages[-1] = {**last, "content": last["content"].replace(f"\n{ANSWER_FORMAT}", "").strip()}
        return messages

    return build
