import threading

import pytest

from alice_app.store.db import open_db
from alice_app.store.runs import RunStore


def test_a_run_goes_from_queued_to_completed_with_timestamps(db):
    runs = RunStore(db)
    run_id = runs.create("grpo", {"steps": 10, "lr": 1e-5})
    run = runs.get(run_id)
    assert run["status"] == "queued" and run["config"] == {"steps": 10, "lr": 1e-5}
    assert run["started_at"] is None and runs.active()["id"] == run_id
    runs.set_status(run_id, "running")
    runs.set_progress(run_id, 3, 10)
    runs.set_checkpoint(run_id, "data/runs/1/checkpoint-3")
    run = runs.get(run_id)
    assert (run["status"], run["step"], run["total"]) == ("running", 3, 10)
    assert run["started_at"] and run["finished_at"] is None and run["checkpoint"].endswith("checkpoint-3")
    runs.set_status(run_id, "completed")
    assert runs.get(run_id)["finished_at"] and runs.active() is None


def test_failures_keep_their_error_and_bad_values_are_refused(db):
    runs = RunStore(db)
    run_id = runs.create("grpo", {})
    runs.set_status(run_id, "failed", error="CUDA out of memory")
    assert runs.get(run_id)["error"] == "CUDA out of memory"
    with pytest.raises(ValueError, match="status must be one of"):
        runs.set_status(run_id, "exploded")
    with pytest.raises(ValueError, match="no training run"):
        runs.set_progress(999, 1, 2)
    with pytest.raises(ValueError, match="kind"):
        runs.create("", {})
    assert runs.get(999) is None


def test_metrics_are_flat_and_in_step_order(db):
    runs = RunStore(db)
    run_id = runs.create("grpo", {})
    runs.add_metrics(run_id, 2, {"loss": 0.4, "reward": 0.6})
    runs.add_metrics(run_id, 1, {"loss": 0.5, "reward": 0.2})
    rows = runs.metrics(run_id)
    assert [r["step"] for r in rows] == [1, 2] and rows[0]["reward"] == 0.2 and "ts" in rows[0]
    assert runs.metrics(run_id + 1) == []


def test_before_and_after_evals_round_trip(db):
    runs = RunStore(db)
    run_id = runs.create("grpo", {})
    before = {"negation_arithmetic": {"easy": 0.1, "hard": 0.0}}
    runs.save_eval(run_id, "before", before)
    runs.save_eval(run_id, "after", {"negation_arithmetic": {"easy": 0.4}})
    runs.save_eval(run_id, "after", {"negation_arithmetic": {"easy": 0.5}})
    assert runs.evals(run_id) == {"before": before, "after": {"negation_arithmetic": {"easy": 0.5}}}
    with pytest.raises(ValueError, match="phase"):
        runs.save_eval(run_id, "during", {})


def test_list_is_newest_first_and_interrupted_runs_are_failed(db_path):
    runs = RunStore(open_db(db_path))
    first, second = runs.create("grpo", {}), runs.create("dpo", {})
    runs.set_status(second, "running")
    assert [r["id"] for r in runs.list()] == [second, first] and len(runs.list(limit=1)) == 1
    runs.db.close()
    restarted = RunStore(open_db(db_path))  # the process died mid-run
    assert restarted.mark_interrupted() == 2
    assert restarted.active() is None and "interrupted" in restarted.get(second)["error"]


def test_a_job_thread_writes_while_the_ui_reads(db):
    runs = RunStore(db)
    run_id = runs.create("grpo", {})

    def job() -> None:
        for step in range(1, 101):
            runs.add_metrics(run_id, step, {"loss": 1 / step})
            runs.set_progress(run_id, step, 100)

    thread = threading.Thread(target=job)
    thread.start()
    while thread.is_alive():
        logged = len(runs.metrics(run_id))  # read first: progress only ever catches up with metrics
        assert runs.get(run_id)["step"] >= logged - 1
    thread.join()
    assert len(runs.metrics(run_id)) == 100 and runs.get(run_id)["step"] == 100
