"""The TrainerCallback that connects a TRL run to the database: metrics, progress, checkpoints, stop.

The UI never talks to the trainer: it polls the runs table, which this callback keeps current.
"""
from __future__ import annotations

import math
import threading
from pathlib import Path
from typing import Any, Callable

from alice_app.training.redraw import REDRAW_METRICS
from alice_app.training.rewards import SOURCE_METRICS
from alice_app.training.stopwatch import Stopwatch

# TRL's log keys (GRPO and DPO) → the names the runs table and the charts use.
METRIC_KEYS: dict[str, str] = {
    "loss": "loss",
    "reward": "reward",
    "reward_std": "reward_std",
    "accuracy": "accuracy",
    "rewards/accuracies": "accuracy",  # DPO: how often chosen outscores rejected
    "rewards/margins": "margin",
    "frac_reward_zero_std": "frac_reward_zero_std",
    "frac_outcome_uniform": "frac_outcome_uniform",  # ours: groups all right or all wrong
    "own_operands": "own_operands",  # ours: replies computing with the task's own operands
    "echo": "echo",  # ours: replies whose wrong answer is another number of the prompt
    "worked_replay": "worked_replay",  # ours: worked examples taught after the step (training/replay.py)
    # ours: each feed source's share of the step's groups, and the share of its groups with one outcome
    **{name: name for name in SOURCE_METRICS},
    # ours, with redraw_uniform: batches a step dropped for one outcome, and whether the one it kept still had it
    **{name: name for name in REDRAW_METRICS},
    "learning_rate": "lr",
    "kl": "kl",
    "grad_norm": "grad_norm",
    "completions/mean_length": "completion_length",
    "step_time": "trl_step_time",
}


def pick_metrics(logs: dict[str, Any]) -> dict[str, float]:
    """The subset of a TRL log line worth keeping, under stable names; NaN and None are dropped."""
    picked = {}
    for key, name in METRIC_KEYS.items():
        value = logs.get(key)
        if isinstance(value, (int, float)) and not math.isnan(value):
            picked[name] = float(value)
    return picked


class RunRecorder:
    """Writes per-step metrics and progress to ``RunStore``; stops the run within one step on request.

    ``stop_requested`` is polled after every optimizer step; when it is set, the trainer saves a
    checkpoint (so the run can be resumed exactly there) and leaves its loop.
    """

    def __init__(self, runs: Any, run_id: int, stop_requested: threading.Event,
                 on_step: Callable[[int, int, dict[str, float]], None] | None = None):
        self.runs, self.run_id = runs, run_id
        self.stop_requested = stop_requested
        self.on_step = on_step
        self._step_started = Stopwatch()
        self._last_step: dict[str, float] = {}

    def on_step_begin(self, args, state, control, **kwargs):
        self._step_started = Stopwatch()

    def on_step_end(self, args, state, control, **kwargs):
        clock = self._step_started
        self._last_step = {"step_time": clock.seconds(), "step_cpu_time": clock.cpu_seconds()}
        return self._stop_if_requested(control)

    def on_log(self, args, state, control, logs=None, **kwargs):
        metrics = pick_metrics(logs or {})
        if "loss" not in metrics:  # the end-of-training summary line, not a step
            return
        metrics.update(self._last_step)
        self.runs.add_metrics(self.run_id, state.global_step, metrics)
        self.runs.set_progress(self.run_id, state.global_step, state.max_steps)
        if self.on_step is not None:
            self.on_step(state.global_step, state.max_steps, metrics)
        # Checked again after logging (the Trainer logs after on_step_end), so a stop requested
        # while this step was being recorded takes effect now rather than after one more step.
        return self._stop_if_requested(control)

    def _stop_if_requested(self, control):
        if self.stop_requested.is_set():
            control.should_training_stop = True
            control.should_save = True  # a checkpoint to resume from, exactly here
        return control

    def on_save(self, args, state, control, **kwargs):
        checkpoint = Path(args.output_dir) / f"checkpoint-{state.global_step}"
        if checkpoint.is_dir():
            self.runs.set_checkpoint(self.run_id, str(checkpoint))


def as_trainer_callback(instance: Any) -> Any:
    """Give a plain object with ``on_*`` hooks the ``transformers.TrainerCallback`` base, so it
    answers every event; transformers is imported only here, when a trainer is being built."""
    from transformers import TrainerCallback

    instance.__class__ = type(type(instance).__name__, (type(instance), TrainerCallback), {})
    return instance


class AtFreshStart:
    """Runs ``action(model)`` when a fresh (not resumed) run begins training and hands its result to ``on_result``:
    the warm start, then the feed probe. A resumed run skips both: its checkpoint holds the warm start, and its
    feed starts with unmeasured cells, as every run did before the probe."""

    def __init__(self, action: Callable[[Any], Any], on_result: Callable[[Any], None]):
        self.action, self.on_result = action, on_result

    def on_train_begin(self, args, state, control, model=None, **kwargs):
        if state.global_step == 0:
            self.on_result(self.action(model))


def at_fresh_start(action: Callable[[Any], Any], on_result: Callable[[Any], None]) -> Any:
    """The trainer callback of ``AtFreshStart``."""
    return as_trainer_callback(AtFreshStart(action, on_result))


def run_recorder(runs: Any, run_id: int, stop_requested: threading.Event,
                 on_step: Callable[[int, int, dict[str, float]], None] | None = None) -> Any:
    return as_trainer_callback(RunRecorder(runs, run_id, stop_requested, on_step))
