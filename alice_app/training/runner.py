"""One training run, start to finish, in the calling thread: load, evaluate, train, evaluate, record.

``TrainingJob`` runs this in a background scheduler thread; the CLI and the benchmark call it
directly. Everything the outside world sees goes through ``RunStore``.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from alice_app.training.callbacks import run_recorder
from alice_app.training.config import TrainConfig
from alice_app.training.evaluate import evaluate_model

StepHook = Callable[[int, int, dict[str, float]], None]


@dataclass
class RunRequest:
    run_id: int
    config: TrainConfig
    output_dir: Path
    resume_from: str | None = None
    stop_requested: threading.Event = field(default_factory=threading.Event)
    on_step: StepHook | None = None
    on_phase: Callable[[str], None] | None = None  # "loading", "eval-before", "training", "eval-after"


def load_training_model(settings: Any, config: TrainConfig) -> tuple[Any, Any]:
    """The base model for LoRA: fp32 on CPU; on CUDA 4-bit NF4 (QLoRA) unless ``qlora`` is off."""
    from alice_app.models.loader import load_causal_lm

    chosen = {"model_name": config.model} if config.model else {}  # a run may name its own base model
    return load_causal_lm(settings.with_overrides(load_4bit=config.use_4bit(), **chosen), for_training=True)


def execute_run(services: Any, request: RunRequest) -> str:
    """Run ``request`` to its end; returns the final status ("completed" or "stopped").

    Exceptions propagate: the caller (the job) records them as the run's error.
    """
    runs, config = services.runs, request.config
    _phase(request, "loading")
    model, tokenizer = load_training_model(services.settings, config)
    families = config.training_families()
    if config.eval_n_per_cell and "before" not in runs.evals(request.run_id):
        _phase(request, "eval-before")
        runs.save_eval(request.run_id, "before", evaluate_model(model, tokenizer, services.settings, config, families))
    trainer = build_trainer(services, request, model, tokenizer, families)
    _phase(request, "training")
    trainer.train(resume_from_checkpoint=request.resume_from)
    if request.stop_requested.is_set():
        return "stopped"
    trainer.save_model(str(request.output_dir / "adapter"))
    runs.set_checkpoint(request.run_id, str(request.output_dir / "adapter"))
    if config.eval_n_per_cell:
        _phase(request, "eval-after")
        runs.save_eval(request.run_id, "after", evaluate_model(trainer.model, tokenizer, services.settings,
                                                               config, families))
    return "completed"


def build_trainer(services: Any, request: RunRequest, model: Any, tokenizer: Any, families: list[str]) -> Any:
    from transformers.trainer_callback import PrinterCallback

    config = request.config
    recorder = run_recorder(services.runs, request.run_id, request.stop_requested, request.on_step)
    if config.mode == "dpo":
        from alice_app.training.dpo import build_dpo_trainer

        trainer = build_dpo_trainer(services, config, model, tokenizer, request.output_dir, [recorder])
    else:
        from alice_app.training.grpo import build_grpo_trainer

        callbacks = [recorder]
        if config.warm_start_prompts:
            from alice_app.training.warm_start import warm_start_callback

            callbacks.append(warm_start_callback(
                services, config, tokenizer, families,
                on_report=lambda report: services.runs.add_metrics(request.run_id, 0, report.as_metrics()),
                on_phase=lambda phase: _phase(request, phase), should_stop=request.stop_requested.is_set))
        trainer = build_grpo_trainer(
            services, config, model, tokenizer, families, request.output_dir, callbacks,
            on_probe=lambda report: services.runs.add_metrics(request.run_id, 0, report.as_metrics()),
            should_stop=request.stop_requested.is_set)
    trainer.remove_callback(PrinterCallback)  # progress goes to the database (and the CLI's bar)
    return trainer


def _phase(request: RunRequest, name: str) -> None:
    if request.on_phase is not None:
        request.on_phase(name)
