"""The chats the policy is trained on; the same wording as an episode's turns, so what is
learned in training is what the hunt, the evaluation and the UI ask."""
from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Callable

from alice_app.episode import new_episode
from alice_app.tasks._common import ANSWER_FORMAT
from alice_app.tasks.registry import family_names, generate_task, get_family
from alice_app.types import Task


def task_messages(task: Task) -> list[dict[str, str]]:
    """Turn 1 of an episode: the system prompt and the task."""
    return new_episode(task).messages()


def _bucket(task: Task, salt: str) -> float:
    """A number in [0, 1] fixed by the task's id (and ``salt``), so a task always gets the same wording."""
    return int(hashlib.sha1(f"{salt}{task.id}".encode()).hexdigest()[:8], 16) / 0xFFFFFFFF


def without_format(task: Task, share: float) -> bool:
    """Whether ``task`` is among the ``share`` of training tasks shown without the format line."""
    return _bucket(task, "") < share


def rephrased(task: Task, share: float) -> Task:
    """``task`` asked in another of its family's phrasings ("add 3 and 4." for "what is 3 + 4?") for
    a ``share`` of the tasks that have the default (first) wording; the numbers and answer stay the same.
    Other tasks (families without phrasings, contrastive repair variants) come back unchanged."""
    params = dict(task.metadata.get("params") or {})
    phrasings = get_family(task.family).choices.get("phrasing", ()) if task.family in family_names() else ()
    if (not phrasings or params.get("phrasing") != phrasings[0] or task.metadata.get("contrastive")
            or _bucket(task, "phrasing") >= share):
        return task
    others = phrasings[1:]
    phrasing = others[int(_bucket(task, "which") * len(others)) % len(others)]
    again = generate_task(task.family, task.level, task.seed, **{**params, "phrasing": phrasing})
    same = all(again.metadata.get(key) == task.metadata.get(key) for key in ("operands", "distractors"))
    return replace(task, prompt=again.prompt) if same and again.answer == task.answer else task


def training_messages(no_format_share: float = 0.0, rephrase_share: float = 0.0) -> Callable[[Task], list[dict[str, str]]]:
    """``task_messages``, except that a share of the tasks are asked in other words and a share
    lose the "Answer: <number>" line."""

    def build(task: Task) -> list[dict[str, str]]:
        messages = task_messages(rephrased(task, rephrase_share) if rephrase_share else task)
        if no_format_share and without_format(task, no_format_share):
            last = messages[-1]
            messages[-1] = {**last, "content": last["content"].replace(f"\n{ANSWER_FORMAT}", "").strip()}
        return messages

    return build
