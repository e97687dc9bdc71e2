import math
import threading
import time
from types import SimpleNamespace

from alice_app.training.callbacks import RunRecorder, pick_metrics


def test_pick_metrics_renames_and_drops_missing_values():
    logs = {"loss": 0.5, "reward": 1.0, "learning_rate": 1e-4, "frac_reward_zero_std": 0.25,
            "rewards/accuracies": 0.75, "kl": math.nan, "entropy": 2.0, "note": "x"}
    assert pick_metrics(logs) == {"loss": 0.5, "reward": 1.0, "lr": 1e-4, "frac_reward_zero_std": 0.25,
                                  "accuracy": 0.75}


def test_recorder_writes_steps_and_checkpoints_and_stops_on_request(services, tmp_path):
    run_id = services.runs.create("grpo", {})
    stop = threading.Event()
    seen = []
    recorder = RunRecorder(services.runs, run_id, stop, on_step=lambda *a: seen.append(a))
    state = SimpleNamespace(global_step=1, max_steps=4)
    control = SimpleNamespace(should_training_stop=False, should_save=False)
    recorder.on_step_begin(None, state, control)
    recorder.on_step_end(None, state, control)
    recorder.on_log(None, state, control, logs={"loss": 0.1, "reward": 0.4})
    recorder.on_log(None, state, control, logs={"train_runtime": 3.0})  # the summary line: ignored
    assert [m["step"] for m in services.runs.metrics(run_id)] == [1]
    assert services.runs.metrics(run_id)[0]["step_time"] >= 0 and services.runs.metrics(run_id)[0]["step_cpu_time"] >= 0
    assert services.runs.get(run_id)["step"] == 1 and services.runs.get(run_id)["total"] == 4
    assert seen and seen[0][:2] == (1, 4)
    (tmp_path / "checkpoint-1").mkdir()
    recorder.on_save(SimpleNamespace(output_dir=str(tmp_path)), state, control)
    assert services.runs.get(run_id)["checkpoint"] == str(tmp_path / "checkpoint-1")
    assert not control.should_training_stop
    stop.set()
    recorder.on_step_end(None, state, control)
    assert control.should_training_stop and control.should_save
    # A stop requested while a step is being logged (the Trainer logs after on_step_end) acts at once.
    late = SimpleNamespace(should_training_stop=False, should_save=False)
    assert recorder.on_log(None, SimpleNamespace(global_step=2, max_steps=4), late, logs={"loss": 0.2}) is late
    assert late.should_training_stop and late.should_save


def test_a_step_records_its_cpu_seconds_apart_from_its_wall_seconds(services):
    """Waiting (a machine busy with other work) adds wall seconds, not CPU seconds; computing adds both."""
    run_id = services.runs.create("grpo", {})
    recorder = RunRecorder(services.runs, run_id, threading.Event())
    control = SimpleNamespace(should_training_stop=False, should_save=False)
    for step, work in ((1, lambda: time.sleep(0.3)), (2, lambda: sum(i * i for i in range(3_000_000)))):
        state = SimpleNamespace(global_step=step, max_steps=2)
        recorder.on_step_begin(None, state, control)
        work()
        recorder.on_step_end(None, state, control)
        recorder.on_log(None, state, control, logs={"loss": 0.1})
    slept, computed = services.runs.metrics(run_id)
    assert slept["step_time"] >= 0.3 and slept["step_cpu_time"] < 0.1
    # computing adds CPU seconds however busy the machine is (a share of a core stretches only the wall seconds)
    assert computed["step_cpu_time"] > max(0.03, 3 * slept["step_cpu_time"])
    assert computed["step_cpu_time"] <= computed["step_time"] + 0.01  # one thread
