"""The background training job: one run at a time, on an APScheduler ``BackgroundScheduler``.

The job thread owns the model; everyone else sees the run through the database (status, step,
metrics, checkpoint, error), which is what the UI polls. A file lock next to the runs makes
"one run at a time" hold across processes too (the app and a CLI run on the same data folder), and
tells a starting process whether runs marked active were left behind by a process that died.
"""
from __future__ import annotations

import fcntl
import logging
import threading
import traceback
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable

from alice_app.training.config import TrainConfig
from alice_app.training.runner import RunRequest, StepHook, execute_run

log = logging.getLogger(__name__)
JOB_ID = "alice-training"
LOCK_SUFFIX = ".training.lock"


class TrainingBusyError(ValueError):
    """A run is already active; the message says which and what to do."""


class TrainingJob:
    """``start(config) -> run_id`` (refuses a second), ``stop()``, ``resume(run_id)``, ``status()``."""

    def __init__(self, services: Any, *, runs_dir: str | Path | None = None,
                 runner: Callable[[Any, RunRequest], str] = execute_run):
        self.services = services
        self.runs_dir = Path(runs_dir or services.settings.runs_dir)  # checkpoints and adapters
        self.runner = runner  # swappable so a test can make training fail on purpose
        self._lock = threading.Lock()
        self._request: RunRequest | None = None
        self._finished = threading.Event()
        self._finished.set()
        self._scheduler: Any = None
        # One lock per database: runs of one database are one queue, whichever process starts them.
        db_path = Path(services.settings.db_path)
        self._lock_path = db_path.with_name(db_path.name + LOCK_SUFFIX)
        self._lock_file: Any = None
        self.phase: str | None = None
        self._fail_orphaned_runs()

    # -- public API ------------------------------------------------------------------------
    def start(self, config: TrainConfig, on_step: StepHook | None = None) -> int:
        config = config.validate()
        with self._lock:
            self._claim()
            run_id = self.services.runs.create(config.mode, config.to_dict())
            self._launch(RunRequest(run_id, config, self.run_dir(run_id), on_step=on_step))
        return run_id

    def start_coevolve(self, config: Any) -> int:
        """Start a co-evolution run (``challenger.coevolve.CoevolveConfig``): challenger and solver
        GRPO phases in turn, in the same background job and under the same one-run-at-a-time rule."""
        from alice_app.challenger.coevolve import coevolve_runner

        config = config.validate()
        with self._lock:
            self._claim()
            run_id = self.services.runs.create("coevolve", asdict(config))
            self._launch(RunRequest(run_id, config, self.run_dir(run_id)), runner=coevolve_runner)
        return run_id

    def resume(self, run_id: int, on_step: StepHook | None = None) -> int:
        """Continue a stopped or failed run from its last checkpoint, under the same run id."""
        run = self.services.runs.get(run_id)
        if run is None:
            raise ValueError(f"no training run with id {run_id}")
        if run["kind"] == "coevolve":
            raise ValueError(f"run {run_id} is a co-evolution run, which cannot be resumed; its finished rounds "
                             "are kept (Challenger tab): start a new one")
        if run["status"] not in ("stopped", "failed"):
            raise ValueError(f"run {run_id} is {run['status']}; only a stopped or failed run can be resumed")
        output_dir = self.run_dir(run_id)
        checkpoint = latest_checkpoint(output_dir)
        config = TrainConfig.from_dict(run["config"])
        with self._lock:
            self._claim()
            self.services.runs.set_status(run_id, "queued")
            self._launch(RunRequest(run_id, config, output_dir, resume_from=checkpoint, on_step=on_step))
        return run_id

    def run_dir(self, run_id: int) -> Path:
        return self.runs_dir / f"run-{run_id}"

    def stop(self) -> bool:
        """Ask the active run to stop after its current step; False when nothing is running."""
        request = self._request
        if request is None or self._finished.is_set():
            return False
        request.stop_requested.set()
        self.services.runs.set_status(request.run_id, "stopping")
        return True

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the active run (if any) has finished; True when it has."""
        return self._finished.wait(timeout)

    def status(self) -> dict[str, Any]:
        request = self._request
        running = request is not None and not self._finished.is_set()
        run = self.services.runs.get(request.run_id) if request else (self.services.runs.list(limit=1) or [None])[0]
        return {"running": running, "phase": self.phase if running else None, "run": run}

    def shutdown(self) -> None:
        if self.stop():
            self.wait(timeout=600)
        if self._scheduler is not None:
            self._scheduler.shutdown(wait=False)

    # -- internals -------------------------------------------------------------------------
    def _claim(self) -> None:
        if not self._finished.is_set():
            raise TrainingBusyError(f"training run {self._request.run_id} is still active; stop it or wait for it "
                                    "to finish before starting another")
        if not self._acquire_file_lock():
            active = self.services.runs.active()
            which = f"run {active['id']}" if active else "a run"
            raise TrainingBusyError(f"another process is training ({which}) on this data folder; "
                                    "wait for it to finish or stop it there")

    def _launch(self, request: RunRequest, runner: Callable[[Any, RunRequest], str] | None = None) -> None:
        self._request = request
        self._finished.clear()
        # One job id per run: APScheduler removes a one-shot job after starting it, and a shared id
        # would let that removal take away the next run's job when runs follow each other quickly.
        self._ensure_scheduler().add_job(self._run, args=[request, runner or self.runner],
                                         id=f"{JOB_ID}-{request.run_id}", max_instances=1, misfire_grace_time=None)

    def _run(self, request: RunRequest, runner: Callable[[Any, RunRequest], str]) -> None:
        runs = self.services.runs
        request.on_phase = self._set_phase
        try:
            runs.set_status(request.run_id, "running")
            final = runner(self.services, request)
            runs.set_status(request.run_id, final)
        except BaseException as exc:  # the thread must always leave the run in a final state
            log.error("training run %s failed:\n%s", request.run_id, traceback.format_exc())
            runs.set_status(request.run_id, "failed", error=f"{type(exc).__name__}: {exc}"[:2000])
        finally:
            self._release_file_lock()
            self.phase = None
            self._finished.set()

    def _set_phase(self, phase: str) -> None:
        self.phase = phase

    def _ensure_scheduler(self) -> Any:
        if self._scheduler is None:
            from apscheduler.schedulers.background import BackgroundScheduler

            self._scheduler = BackgroundScheduler(daemon=True)
            self._scheduler.start()
        return self._scheduler

    def _acquire_file_lock(self) -> bool:
        self._lock_path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self._lock_path, "w")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            return False
        self._lock_file = handle
        return True

    def _release_file_lock(self) -> None:
        if self._lock_file is not None:
            fcntl.flock(self._lock_file, fcntl.LOCK_UN)
            self._lock_file.close()
            self._lock_file = None

    def _fail_orphaned_runs(self) -> None:
        """Runs marked active while no process holds the lock were left by one that died."""
        if self._acquire_file_lock():
            try:
                count = self.services.runs.mark_interrupted()
                if count:
                    log.warning("marked %d training run(s) left active by a stopped process as failed", count)
            finally:
                self._release_file_lock()


def latest_checkpoint(output_dir: Path) -> str | None:
    """The newest ``checkpoint-N`` folder of a run, or None (the run then restarts from step 0)."""
    steps = [(int(p.name.split("-")[1]), p) for p in Path(output_dir).glob("checkpoint-*")
             if p.name.split("-")[1].isdigit() and (p / "trainer_state.json").is_file()]
    return str(max(steps)[1]) if steps else None
