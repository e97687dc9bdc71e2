"""`python -m alice_app train`: a GRPO, episode or DPO run on the configured model, in the foreground.

    python -m alice_app train --steps 40
    python -m alice_app train --steps 40 --mode episode --db /tmp/alice.db --out /tmp/runs
    python -m alice_app train --resume 3
    python -m alice_app train --config examples/recipes/grpo_smollm2.yaml --steps 5 --report_to tensorboard

The run goes through the same background job as the app (so it shows in the Training tab, and a
second run on the same database is refused); Ctrl-C stops it after the current step with a
checkpoint, and `--resume RUN_ID` continues it.
"""
from __future__ import annotations

import sys
from typing import Any

from alice_app.cli.recipe import add_dataclass_flags, config_from_args as recipe_config
from alice_app.training.config import TrainConfig


def register(subparsers) -> None:
    train = subparsers.add_parser(
        "train", help="train the policy (GRPO with LoRA, episode mode, or DPO)",
        description="Every TrainConfig setting is a flag (from the dataclass, as TRL's TrlParser builds them) "
                    "and a key of a --config YAML recipe; flags override the recipe.")
    train.add_argument("--config", metavar="RECIPE.yaml", help="YAML recipe of TrainConfig settings (examples/)")
    train.add_argument("--db", help="SQLite database (default: ALICE_DB or data/alice.db)")
    train.add_argument("--out", help="folder for checkpoints and adapters (default: <data>/runs)")
    train.add_argument("--resume", type=int, metavar="RUN_ID", help="continue a stopped or failed run")
    add_dataclass_flags(train, TrainConfig)
    train.set_defaults(func=run_train_command)


def run_train_command(args) -> int:
    from alice_app.cli.hunt import open_services
    from alice_app.training.job import TrainingJob

    config = None if args.resume else config_from_args(args)  # bad values fail before anything loads
    services = open_services(args.db)
    job = TrainingJob(services, runs_dir=args.out)
    bar = _progress_bar()
    try:
        run_id = job.resume(args.resume, on_step=bar.step) if args.resume else job.start(config, on_step=bar.step)
        _wait(job)
    finally:
        bar.close()
        job.shutdown()
    return _report(services, run_id, job)


def config_from_args(args) -> TrainConfig:
    return recipe_config(args, TrainConfig, getattr(args, "config", None))


def _wait(job: Any) -> None:
    try:
        while not job.wait(timeout=0.5):
            pass
    except KeyboardInterrupt:
        print("\nstopping after the current step (a checkpoint is saved) ...", file=sys.stderr)
        job.stop()
        job.wait()


class _progress_bar:
    """A tqdm bar fed from the job thread's per-step hook."""

    def __init__(self):
        from tqdm.auto import tqdm

        self.bar = tqdm(desc="train", unit="step")

    def step(self, step: int, total: int, metrics: dict[str, float]) -> None:
        self.bar.total = total
        self.bar.n = step
        shown = {k: f"{metrics[k]:.3g}" for k in ("loss", "reward", "accuracy", "frac_outcome_uniform") if k in metrics}
        self.bar.set_postfix(shown, refresh=False)
        self.bar.refresh()

    def close(self) -> None:
        self.bar.close()


def _report(services: Any, run_id: int, job: Any) -> int:
    from alice_app.cli.hunt import format_table

    run = services.runs.get(run_id)
    print(f"\nrun {run_id}: {run['status']} at step {run['step']}/{run['total'] or '?'}"
          f"{' — ' + run['error'] if run['error'] else ''}")
    if run["checkpoint"]:
        print(f"checkpoint: {run['checkpoint']}")
    evals = services.runs.evals(run_id)
    if evals:
        print("\nheld-out accuracy (greedy first attempts):\n")
        print(format_table(before_after_rows(evals)))
    if run["status"] == "stopped":
        print(f"\nresume with: python -m alice_app train --resume {run_id}")
    return 0 if run["status"] in ("completed", "stopped") else 1


def before_after_rows(evals: dict[str, dict]) -> list[dict[str, str]]:
    """One row per family × level: before, after and the change, as fixed-width strings."""
    before, after = evals.get("before", {}), evals.get("after", {})
    rows = []
    for family in sorted(set(before) | set(after)):
        for level in ("easy", "medium", "hard"):
            b, a = before.get(family, {}).get(level), after.get(family, {}).get(level)
            delta = f"{a - b:+.2f}" if a is not None and b is not None else ""
            rows.append({"family": family, "level": level, "before": _pct(b), "after": _pct(a), "change": delta})
    return rows


def _pct(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"
