"""Controlled training experiments (used by bench/learning.py): one arm of the learning comparison,
and the step-time comparison of ALICE's trainer with a bare TRL GRPO loop on the same prompts.

Each experiment gets a fresh temporary database and a fresh LoRA adapter on the embedded model
(the converted checkpoint itself is shared through the default models folder).
"""
from __future__ import annotations

import os
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from alice_app.config import Settings
from alice_app.training.callbacks import as_trainer_callback, run_recorder
from alice_app.training.config import TrainConfig
from alice_app.training.evaluate import evaluate_model
from alice_app.training.feed import CoevolvingFeed, static_items
from alice_app.training.rewards import make_reward_function
from alice_app.training.runner import RunRequest, build_trainer, load_training_model


def experiment_services(folder: Path) -> Any:
    """Services on a fresh database in ``folder``, reusing the shared embedded checkpoint."""
    from alice_app.models.loader import ensure_embedded_checkpoint
    from alice_app.services import Services

    shared = Settings.from_env()
    ensure_embedded_checkpoint(shared.models_dir)
    (folder / "data").mkdir(parents=True, exist_ok=True)
    os.symlink(Path(shared.models_dir).resolve(), folder / "data" / "models")
    return Services.from_settings(Settings(data_dir=folder / "data", db_path=folder / "data" / "alice.db"))


class CurveRecorder:
    """Evaluates the model on held-out seeds every ``every`` steps (training time excludes it)."""

    def __init__(self, tokenizer: Any, settings: Any, config: TrainConfig, families: list[str], every: int,
                 n_per_cell: int):
        self.tokenizer, self.settings, self.config, self.families = tokenizer, settings, config, families
        self.every, self.n_per_cell = every, n_per_cell
        self.points: list[dict[str, Any]] = []
        self.seconds = 0.0  # spent evaluating, to be taken out of the training time

    def on_step_end(self, args, state, control, model=None, **kwargs):
        step = state.global_step
        if step % self.every == 0 and step < state.max_steps:
            started = time.perf_counter()
            table = evaluate_model(model, self.tokenizer, self.settings, self.config, self.families,
                                   n_per_cell=self.n_per_cell)
            self.points.append({"step": step, "table": table})
            self.seconds += time.perf_counter() - started


def arm_config(feed: str, steps: int, seed: int, eval_n_per_cell: int,
               overrides: dict[str, Any] | None = None) -> TrainConfig:
    """The settings of one arm: ``overrides`` (shared by both arms) on top of TrainConfig's defaults."""
    return TrainConfig.from_dict({**(overrides or {}), "feed": feed, "steps": steps, "seed": seed,
                                  "eval_n_per_cell": eval_n_per_cell, "checkpoint_every": steps + 1})


def run_arm(feed: str, steps: int, seed: int, eval_n_per_cell: int, curve_n_per_cell: int,
            eval_every: int, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """Train one arm (feed = "coevolve" or "static") and return its evaluations and step metrics."""
    with tempfile.TemporaryDirectory(prefix=f"alice-{feed}-") as tmp:
        services = experiment_services(Path(tmp))
        config = arm_config(feed, steps, seed, eval_n_per_cell, overrides)
        model, tokenizer = load_training_model(services.settings, config)
        families = config.training_families()
        before = evaluate_model(model, tokenizer, services.settings, config, families)
        run_id = services.runs.create(config.mode, config.to_dict())
        trainer = build_trainer(services, RunRequest(run_id, config, Path(tmp) / "run"), model, tokenizer, families)
        curve = CurveRecorder(tokenizer, services.settings, config, families, eval_every, curve_n_per_cell)
        trainer.add_callback(as_trainer_callback(curve))
        started = time.perf_counter()
        trainer.train()
        train_seconds = time.perf_counter() - started - curve.seconds
        after = evaluate_model(trainer.model, tokenizer, services.settings, config, families)
        levels = {f: s.pinned or s.level for f, s in services.curriculum.load(families).items()}
        result = {"feed": feed, "config": config.to_dict(), "before": before, "after": after,
                  "curve": curve.points, "metrics": services.runs.metrics(run_id), "train_seconds": train_seconds,
                  "curve_eval_seconds": curve.seconds, "final_levels": levels,
                  "banked_failures": services.bank.query(page_size=1).total}
        services.close()
    return result


class StepTimer:
    def __init__(self):
        self.seconds: list[float] = []
        self._started = 0.0

    def on_step_begin(self, args, state, control, **kwargs):
        self._started = time.perf_counter()

    def on_step_end(self, args, state, control, **kwargs):
        self.seconds.append(time.perf_counter() - self._started)


def bare_reward(completions, task, **_):
    """What a bare GRPO loop would use: tier-1 correctness only, no feedback, no storage."""
    import json

    from alice_app.training.rewards import completion_text
    from alice_app.types import Task
    from alice_app.verify.tier1 import check

    return [float(check(Task.from_dict(json.loads(t)), completion_text(c)).is_correct)
            for c, t in zip(completions, task)]


def run_overhead(steps: int, seed: int, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """Median step time of ALICE's trainer vs a bare GRPOTrainer, same prompts, seed and settings."""
    from datasets import Dataset
    from trl import GRPOTrainer

    with tempfile.TemporaryDirectory(prefix="alice-overhead-") as tmp:
        services = experiment_services(Path(tmp))
        config = arm_config("static", steps, seed, 0, overrides)
        families = config.training_families()
        rows = [item.to_row() for item in static_items(families, steps * config.prompts_per_step, seed)]
        times = {}
        for side in ("bare", "alice"):
            model, tokenizer = load_training_model(services.settings, config)
            timer = as_trainer_callback(StepTimer())
            if side == "bare":
                reward, callbacks = bare_reward, [timer]
            else:
                feed = CoevolvingFeed(families, services.curriculum, services.bank, seed=seed)
                run_id = services.runs.create("grpo", config.to_dict())
                reward = make_reward_function(services.verifier, feed.observe)
                callbacks = [run_recorder(services.runs, run_id, threading.Event()), timer]
            trainer = GRPOTrainer(model=model, reward_funcs=reward, args=config.to_grpo_config(str(Path(tmp) / side)),
                                  train_dataset=Dataset.from_list(rows), processing_class=tokenizer,
                                  peft_config=config.lora_config(), callbacks=callbacks)
            trainer.train()
            times[side] = timer.seconds
        draw_seconds = _feed_draw_seconds(services, families, seed)
        services.close()
    bare, alice = statistics.median(times["bare"]), statistics.median(times["alice"])
    alice_live = alice + draw_seconds * config.prompts_per_step
    return {"bare_step_seconds": times["bare"], "alice_step_seconds": times["alice"],
            "feed_draw_seconds": draw_seconds, "median_bare": bare, "median_alice": alice,
            "ratio": alice_live / bare}


def _feed_draw_seconds(services: Any, families: list[str], seed: int, draws: int = 200) -> float:
    feed = CoevolvingFeed(families, services.curriculum, services.bank, seed=seed)
    started = time.perf_counter()
    for _ in range(draws):
        feed.draw()
    return (time.perf_counter() - started) / draws
