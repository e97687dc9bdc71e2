"""The job's bookkeeping with a stand-in runner (fast); the real trainer goes through the same job
in test_training_slow.py."""
import sqlite3
import threading

import pytest

from alice_app.training.config import TrainConfig
from alice_app.training.job import TrainingBusyError, TrainingJob, latest_checkpoint

CONFIG = TrainConfig(steps=3, eval_n_per_cell=0)


class BlockingRunner:
    """Runs until asked to stop (like a trainer checking the flag after each step)."""

    def __init__(self):
        self.started = threading.Event()
        self.requests = []

    def __call__(self, services, request):
        self.requests.append(request)
        self.started.set()
        request.stop_requested.wait(timeout=30)
        return "stopped" if request.stop_requested.is_set() else "completed"


def _integrity(settings):
    with sqlite3.connect(settings.db_path) as conn:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]


def test_one_run_at_a_time_stop_and_resume(services):
    runner = BlockingRunner()
    job = TrainingJob(services, runner=runner)
    run_id = job.start(CONFIG)
    assert runner.started.wait(10)
    with pytest.raises(TrainingBusyError, match=f"run {run_id} is still active"):
        job.start(CONFIG)
    assert job.status()["running"] and services.runs.get(run_id)["status"] == "running"
    assert job.stop()
    assert job.wait(10)
    assert services.runs.get(run_id)["status"] == "stopped"
    assert not job.status()["running"] and not job.stop()
    checkpoint = job.run_dir(run_id) / "checkpoint-2"
    checkpoint.mkdir(parents=True)
    (checkpoint / "trainer_state.json").write_text("{}")
    runner.started.clear()
    assert job.resume(run_id) == run_id
    assert runner.started.wait(10)
    assert runner.requests[-1].resume_from == str(checkpoint) and runner.requests[-1].config == CONFIG
    job.stop()
    job.wait(10)
    job.shutdown()


def test_a_second_process_is_refused_through_the_lock(services):
    runner = BlockingRunner()
    first, second = TrainingJob(services, runner=runner), TrainingJob(services, runner=runner)
    run_id = first.start(CONFIG)
    assert runner.started.wait(10)
    with pytest.raises(TrainingBusyError, match=f"another process is training \\(run {run_id}\\)"):
        second.start(CONFIG)
    first.stop()
    first.wait(10)
    first.shutdown()


def test_a_crash_inside_training_marks_the_run_failed_and_keeps_the_database(services, settings):
    def crashing(services, request):
        services.runs.add_metrics(request.run_id, 1, {"loss": 1.0})
        raise RuntimeError("the reward function exploded")

    job = TrainingJob(services, runner=crashing)
    run_id = job.start(CONFIG)
    assert job.wait(10)
    run = services.runs.get(run_id)
    assert run["status"] == "failed" and "RuntimeError: the reward function exploded" in run["error"]
    assert services.runs.metrics(run_id)[0]["loss"] == 1.0
    assert _integrity(settings) == "ok"
    assert job.start(CONFIG) > run_id  # the failed run does not block the next
    job.wait(10)
    job.shutdown()


def test_runs_left_active_by_a_dead_process_are_failed_at_start_up(services):
    run_id = services.runs.create("grpo", CONFIG.to_dict())
    services.runs.set_status(run_id, "running")
    TrainingJob(services)
    run = services.runs.get(run_id)
    assert run["status"] == "failed" and "interrupted" in run["error"]


def test_resume_refuses_unknown_and_active_runs(services):
    job = TrainingJob(services, runner=BlockingRunner())
    with pytest.raises(ValueError, match="no training run with id 99"):
        job.resume(99)
    run_id = services.runs.create("grpo", CONFIG.to_dict())
    with pytest.raises(ValueError, match="only a stopped or failed run can be resumed"):
        job.resume(run_id)


def test_latest_checkpoint_is_the_highest_complete_one(tmp_path):
    assert latest_checkpoint(tmp_path) is None
    for step in (2, 10, 3):
        (tmp_path / f"checkpoint-{step}").mkdir()
        (tmp_path / f"checkpoint-{step}" / "trainer_state.json").write_text("{}")
    (tmp_path / "checkpoint-11").mkdir()  # half-written: no trainer state
    assert latest_checkpoint(tmp_path) == str(tmp_path / "checkpoint-10")
