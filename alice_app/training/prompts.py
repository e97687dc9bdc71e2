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


def _reworded(task: Task, **change) -> Task:
    """``task`` generated again with ``change`` to its params, when that keeps its numbers and answer."""
    again = generate_task(task.family, task.level, task.seed, **{**(task.metadata.get("params") or {}), **change})
    same = all(again.metadata.get(key) == task.metadata.get(key) for key in ("operands", "distractors"))
    return replace(task, prompt=again.prompt) if same and again.answer == task.answer else task


def _family_choices(task: Task, param: str) -> tuple:
    """The values ``param`` may take in ``task``'s family (none for unregistered ones: control twins)."""
    return get_family(task.family).choices.get(param, ()) if task.family in family_names() else ()


def _rewordable(task: Task, param: str, share: float) -> bool:
    """Whether ``task`` has its family's default (first) ``param`` and falls in the ``share`` of tasks picked
    for it (contrastive repair variants quote an earlier answer and keep their words)."""
    choices = _family_choices(task, param)
    default = bool(choices) and (task.metadata.get("params") or {}).get(param) == choices[0]
    return default and not task.metadata.get("contrastive") and _bucket(task, param) < share


def rephrased(task: Task, share: float) -> Task:
    """``task`` asked in another of its family's phrasings ("add 3 and 4." for "what is 3 + 4?") for
    a ``share`` of the tasks that have the default (first) wording; the numbers and answer stay the same.
    Other tasks (families without phrasings, contrastive repair variants) come back unchanged."""
    if not _rewordable(task, "phrasing", share):
        return task
    others = _family_choices(task, "phrasing")[1:]
    return _reworded(task, phrasing=others[int(_bucket(task, "which") * len(others)) % len(others)])


def freely_worded(task: Task, share: float) -> Task:
    """``task`` with its whole prompt composed freely (``wording="free"``: a question frame and a distractor
    sentence from many, alice_app.tasks.wordings) for a ``share`` of the templated tasks of the families that
    offer it; the numbers and answer stay the same."""
    if not _rewordable(task, "wording", share):
        return task
    return _reworded(task, wording="free")


def training_messages(no_format_share: float = 0.0, rephrase_share: float = 0.0,
                      wording_share: float = 0.0) -> Callable[[Task], list[dict[str, str]]]:
    """``task_messages``, except that a share of the tasks are worded freely, a share of the others asked
    in other words, and a share lose the "Answer: <number>" line."""

    def build(task: Task) -> list[dict[str, str]]:
        worded = freely_worded(task, wording_share) if wording_share else task
        if rephrase_share and worded is task:
            worded = rephrased(task, rephrase_share)
        messages = task_messages(worded)
        return format_free(messages) if no_format_share and without_format(task, no_format_share) else messages

    return build


def format_free(messages: list[dict[str, str]]) -> list[dict[str, str]]:
    """``messages`` with the "Answer: <number>" line taken out of the last one."""
    last = messages[-1]
    return [*messages[:-1], {**last, "content": last["content"].replace(f"\n{ANSWER_FORMAT}", "").strip()}]


def wordings(task: Task) -> list[Task]:
    """``task`` in each wording its family offers, the numbers and answer unchanged: its own, another
    phrasing, and a free composition (the families that have them), each prompt once."""
    variants = [task, rephrased(task, 1.0), freely_worded(task, 1.0)]
    return list({variant.prompt: variant for variant in variants}.values())
