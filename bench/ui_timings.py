"""How long a newcomer waits in the workbench: the first model answer (loading included), a later
answer, and a short GRPO run through the Training tab's own job, phase by phase.

    python bench/ui_timings.py [--steps 3]

Runs on a fresh temporary data folder with the embedded model (no network). Prints one line per
measurement and what a default run (TrainConfig's steps, no held-out evaluation) would take at the
measured step time; the README quotes this output.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from alice_app.config import Settings  # noqa: E402
from alice_app.services import Services, training_config, training_defaults  # noqa: E402
from alice_app.ui import episode  # noqa: E402
from alice_app.ui.progress import setup_seconds, step_times  # noqa: E402


def timed_answer(services, session) -> float:
    start = time.perf_counter()
    list(episode.model_answer(services, session))
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3, help="GRPO steps of the measured run (0: answers only)")
    args = parser.parse_args()
    data = Path(tempfile.mkdtemp(prefix="alice-timings-")) / "data"
    services = Services.from_settings(Settings(data_dir=data, db_path=data / "alice.db"))
    session = episode.new_episode(services, None, "negation_arithmetic", "easy", "7", episode.CHOSEN)[0]
    print(f"first model answer (loads the embedded model): {timed_answer(services, session):.1f} s")
    print(f"next model answer: {timed_answer(services, session):.2f} s")
    if args.steps < 1:
        return

    config = training_config({"steps": args.steps, "eval_n_per_cell": 0, "seed": 0})
    start = time.perf_counter()
    run_id = services.training.start(config)
    services.training.wait()
    wall = time.perf_counter() - start
    run, metrics = services.runs.get(run_id), services.runs.metrics(run_id)
    times = step_times(metrics)
    mean_step = sum(times) / len(times)
    print(f"{args.steps}-step GRPO run: {run['status']} in {wall:.0f} s wall; loading {setup_seconds(run, metrics):.0f} s,"
          f" mean step {mean_step:.1f} s")
    steps = training_defaults()["steps"]
    print(f"a default {steps}-step run at that step time: about {(setup_seconds(run, metrics) + steps * mean_step) / 60:.0f} min"
          " (plus the held-out evaluations when enabled)")
    services.close()


if __name__ == "__main__":
    main()
