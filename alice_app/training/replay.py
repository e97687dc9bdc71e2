"""Worked replay: during GRPO, what the policy just got wrong is taught with the engine's worked solution.

With ``TrainConfig.worked_replay`` on, every judged group of a step whose completions were not all
correct hands its task over; after the step's GRPO update, one epoch of supervised fine-tuning on the
engine's worked solutions of those tasks, each in every wording its family offers (``worked_examples``,
as the worked warm start teaches), moves the same LoRA weights. The GRPO groups stay the policy's own
samples (nothing is injected into them, so ``frac_outcome_uniform`` still counts only the model's
answers); the replay keeps the warm start's teaching from drifting while GRPO explores, and it teaches
exactly the tasks the feed chose and the model failed (for the co-evolving feed: zone, hunt and repair
tasks); with ``worked_replay_unsolved_only``, only the tasks none of whose completions was correct (the
groups whose rewards carry no correctness signal for GRPO). Its AdamW keeps its moments across steps.
Each step's count of taught examples is logged as ``worked_replay``.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from alice_app.training.rewards import GroupResult
from alice_app.training.warm_start import fine_tune, lora_optimizer, worked_examples
from alice_app.types import Task


def failed_tasks(groups: Sequence[GroupResult], unsolved_only: bool = False) -> list[Task]:
    """The distinct tasks of ``groups`` with at least one wrong completion (with ``unsolved_only``: with no
    correct one), in order."""
    tasks: dict[str, Task] = {}
    for group in groups:
        if group.passes < (1 if unsolved_only else len(group.verdicts)):
            tasks.setdefault(group.task.id, group.task)
    return list(tasks.values())


class WorkedReplay:
    """Collects the failed tasks of each step (``observe``, a group observer) and teaches them at its end."""

    def __init__(self, tokenizer: Any, learning_rate: float, should_stop: Callable[[], bool] = lambda: False,
                 unsolved_only: bool = False):
        self.tokenizer, self.learning_rate, self.should_stop = tokenizer, learning_rate, should_stop
        self.unsolved_only = unsolved_only
        self.pending: list[Task] = []
        self.taught_last_step = 0
        self._optimizer = None

    def observe(self, groups: Sequence[GroupResult]) -> None:
        self.pending.extend(failed_tasks(groups, self.unsolved_only))

    def on_step_end(self, args, state, control, model=None, **kwargs):
        tasks, self.pending = self.pending, []
        examples = worked_examples(tasks)
        self.taught_last_step = len(examples)
        if examples and model is not None:
            if self._optimizer is None:
                self._optimizer = lora_optimizer(model, self.learning_rate)
            fine_tune(model, self.tokenizer, examples, self.learning_rate, self.should_stop, self._optimizer)
        return control

    def on_log(self, args, state, control, logs=None, **kwargs):
        if logs is not None and "loss" in logs:  # a step's line (read by the run recorder after this)
            logs["worked_replay"] = self.taught_last_step
        return control


def chain_observers(*observers: Callable[[list[GroupResult]], None] | None) -> Callable[[list[GroupResult]], None] | None:
    """One group observer calling each of ``observers`` that is not None (None when none is)."""
    present = [observer for observer in observers if observer is not None]
    if not present:
        return None

    def observe(groups: list[GroupResult]) -> None:
        for observer in present:
            observer(groups)

    return observe
