"""GRPO reward functions with TRL's signature ``f(completions, **columns) -> list[float]``.

The reward is the engine's own: the verifier stack judges each completion and
``reward.compute_reward`` turns the verdict into a number. Because TRL hands a reward function a
whole generation batch, made of groups of k completions of the same prompt, each group is also a
pass-rate measurement of its task; it is passed on to an observer (the co-evolving feed), which
feeds it back into the curriculum, the pass-rate table and the failure bank.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from alice_app.reward import compute_reward
from alice_app.shortcuts import computes_with, contradicts_own_result, echoes_prompt_number
from alice_app.types import Task, Verdict


@dataclass(frozen=True)
class GroupResult:
    """The k completions of one prompt, as judged: one pass-rate measurement of ``task``."""

    task: Task
    source: str  # where the feed found the task: hunt, zone, repair, static, episode
    failure_id: int | None  # the banked failure this task repairs, if any
    responses: tuple[str, ...]
    verdicts: tuple[Verdict, ...]

    @property
    def passes(self) -> int:
        return sum(v.is_correct for v in self.verdicts)

    @property
    def pass_rate(self) -> float:
        return self.passes / len(self.verdicts)


GroupObserver = Callable[[list[GroupResult]], None]


def completion_text(completion: Any) -> str:
    """TRL passes a plain string, or for chat prompts a list of messages (the assistant's reply)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list) and completion:
        return str(completion[-1].get("content", ""))
    return ""


def make_reward_function(verifier: Any, observer: GroupObserver | None = None, consistency_penalty: float = 0.0,
                         working_bonus: float = 0.0, echo_penalty: float = 0.0) -> Callable[..., list[float]]:
    """The reward function for GRPOTrainer. Columns used: ``task`` (JSON of a Task), and optionally
    ``source``, ``failure_id``, ``turn_index`` and ``previous_answers`` (JSON list, episode mode).
    ``consistency_penalty`` is subtracted when a reply's final answer contradicts its own last
    computed result ("6 + 6 = 12. The answer is 6"); ``working_bonus`` is added when the reply computes
    with exactly the task's own operands (``uses_own_operands``), right or wrong; ``echo_penalty`` is
    subtracted when a wrong final answer is another number of the task's prompt (``echoes_prompt_number``).
    Each batch logs ``echo``, the share of its replies that echo."""

    def alice_reward(completions: Sequence[Any], task: Sequence[str], **columns: Any) -> list[float]:
        responses = [completion_text(c) for c in completions]
        tasks = [Task.from_dict(json.loads(t)) for t in task]
        verdicts = [verifier.verify(t, r) for t, r in zip(tasks, responses)]
        own = [uses_own_operands(t, r) for t, r in zip(tasks, responses)]
        echo = [echoes_prompt_number(t.prompt, v.extracted, t.answer) for t, v in zip(tasks, verdicts)]
        rewards = [_reward(v, r, i, columns) - consistency_penalty * contradicts_own_result(r, v.extracted)
                   + working_bonus * own[i] - echo_penalty * echo[i]
                   for i, (v, r) in enumerate(zip(verdicts, responses))]
        groups = group_results(tasks, responses, verdicts, columns)
        log_metric = columns.get("log_metric")
        if log_metric is not None:
            log_metric("accuracy", sum(v.is_correct for v in verdicts) / max(len(verdicts), 1))
            log_metric("frac_outcome_uniform", frac_outcome_uniform(groups))
            log_metric("own_operands", sum(own) / max(len(own), 1))
            log_metric("echo", sum(echo) / max(len(echo), 1))
            for name, value in by_source(groups).items():
                log_metric(name, value)
        if observer is not None:
            observer(groups)
        return rewards

    return alice_reward


def uses_own_operands(task: Task, response: str) -> bool:
    """Whether ``response`` computes with exactly the operands of ``task``'s expression ("3 + 7 = …" for
    "Someone says 12. Add 3 and 7.", not "12 + 7 = 19"): credit for choosing the question's numbers over
    the distractors, which a group whose answers are all still wrong can then learn from. Only tasks
    that are an expression over operands (the arithmetic families) can earn it."""
    operands = task.metadata.get("operands")
    return bool(task.metadata.get("expression") and operands) and computes_with(response, operands)


def frac_outcome_uniform(groups: Sequence[GroupResult]) -> float:
    """Share of groups whose completions were all right or all wrong. TRL's ``frac_reward_zero_std``
    counts groups with equal *rewards*, which the format bonus almost never leaves equal; a group
    with one outcome still teaches nothing about correctness, so this is the share that counts."""
    if not groups:
        return 0.0
    return sum(map(one_outcome, groups)) / len(groups)


def one_outcome(group: GroupResult) -> bool:
    """Whether every completion of ``group`` was right, or every one wrong."""
    return group.passes in (0, len(group.verdicts))


# The co-evolving feed's sources of a step's prompts (``training/feed.py``), each reported on its own.
FEED_SOURCES = ("hunt", "zone", "repair")
# The names ``by_source`` logs: per source, its share of the groups and the share of those with one outcome.
SOURCE_METRICS = tuple(f"{figure}_{source}" for source in FEED_SOURCES for figure in ("groups", "uniform"))


def by_source(groups: Sequence[GroupResult]) -> dict[str, float]:
    """Per feed source: ``groups_<source>``, its share of the groups, and where it has any, ``uniform_<source>``,
    the share of its groups with one outcome; whether zone replays (a task's own last group) predict a mixed
    group better than a fresh hunt is then measured, not assumed. Empty for a feed without these sources."""
    figures: dict[str, float] = {}
    if not any(r.source in FEED_SOURCES for r in groups):
        return figures
    for source in FEED_SOURCES:
        own = [r for r in groups if r.source == source]
        figures[f"groups_{source}"] = len(own) / len(groups)
        if own:
            figures[f"uniform_{source}"] = frac_outcome_uniform(own)
    return figures


def _reward(verdict: Verdict, response: str, index: int, columns: dict[str, Any]) -> float:
    turn_index = int(_column(columns, "turn_index", index, 1))
    previous = json.loads(_column(columns, "previous_answers", index, "[]") or "[]")
    return float(compute_reward(verdict, turn_index, response, previous).total)


def _column(columns: dict[str, Any], name: str, index: int, default: Any) -> Any:
    values = columns.get(name)
    return default if values is None else values[index]


def group_results(tasks: Sequence[Task], responses: Sequence[str], verdicts: Sequence[Verdict],
                  columns: dict[str, Any]) -> list[GroupResult]:
    """Split a generation batch into per-prompt groups, keyed by task id in order of appearance."""
    order: dict[str, list[int]] = {}
    for index, task in enumerate(tasks):
        order.setdefault(task.id, []).append(index)
    results = []
    for indices in order.values():
        first = indices[0]
        failure_id = _column(columns, "failure_id", first, -1)
        results.append(GroupResult(
            task=tasks[first],
            source=str(_column(columns, "source", first, "static")),
            failure_id=None if failure_id is None or int(failure_id) < 0 else int(failure_id),
            responses=tuple(responses[i] for i in indices),
            verdicts=tuple(verdicts[i] for i in indices),
        ))
    return results
