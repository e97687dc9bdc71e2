"""Curriculum, training and charts tab handlers on real Services (no model is loaded here)."""
from alice_app.ui import charts_tab, curriculum, training

VALID = (20, 0.8, 0.3, 8, 0.2, 0.8, 0.3)


def test_show_lists_every_family_with_the_saved_config(services):
    rows, summary, *form = curriculum.show(services)
    assert {r[0] for r in rows} >= {"negation_arithmetic", "plain_arithmetic"}
    assert all(r[1] == "easy" for r in rows) and "Window **20**" in summary
    assert tuple(form) == VALID


def test_save_config_validates_with_a_clear_error(services):
    assert "saved" in curriculum.save_config(services, 30, 0.9, 0.2, 10, 0.1, 0.9, 0.5)
    assert services.curriculum.load_config().window == 30
    message = curriculum.save_config(services, 30, 0.2, 0.9, 10, 0.1, 0.9, 0.5)  # promote below demote
    assert message.startswith("⚠ Not saved") and services.curriculum.load_config().promote_at == 0.9
    assert "needs a number" in curriculum.save_config(services, None, 0.9, 0.2, 10, 0.1, 0.9, 0.5)


def test_pin_and_unpin(services):
    assert "pinned at hard" in curriculum.pin(services, "false_claim", "hard")
    state = services.curriculum.load(["false_claim"])["false_claim"]
    assert state.pinned == "hard" and state.level == "hard"
    curriculum.unpin(services, "false_claim")
    assert services.curriculum.load(["false_claim"])["false_claim"].pinned is None


def test_reset_needs_confirmation_and_password(admin_services):
    services = admin_services
    curriculum.pin(services, "false_claim", "hard")
    assert "Tick" in curriculum.reset(services, False, "pw")
    assert "admin password" in curriculum.reset(services, True, "no")
    assert services.curriculum.load(["false_claim"])["false_claim"].level == "hard"
    assert "reset" in curriculum.reset(services, True, "pw")
    assert services.curriculum.load(["false_claim"])["false_claim"].level == "easy"


def test_training_start_needs_the_password_and_valid_settings(admin_services):
    services = admin_services
    form = ("grpo", "coevolve", services.settings.model_name, 2, 1e-4, 4, 0.0, 1.0, 16, 4, 0)
    assert "admin password" in training.start(services, "nope", *form)
    assert services.runs.list() == []
    if training.training_available() is None:
        bad = ("grpo", "coevolve", services.settings.model_name, 0, 1e-4, 4, 0.0, 1.0, 16, 4, 0)
        assert "steps must be at least 1" in training.start(services, "pw", *bad)
        assert services.runs.list() == []


def test_stop_without_a_run(services):
    assert training.stop(services, "") == "No run is active in this app."


def test_progress_reads_runs_metrics_and_evals(services):
    assert "No training run yet" in training.progress(services, None)[0]
    run_id = services.runs.create("grpo", {"steps": 4})
    services.runs.set_status(run_id, "stopped")  # not "running": no job thread backs this run
    services.runs.set_progress(run_id, 2, 4)
    for step in (1, 2):
        services.runs.add_metrics(run_id, step, {"reward": 0.5 * step, "step_time": 10.0})
    services.runs.save_eval(run_id, "before", {"negation_arithmetic": {"easy": 0.1}})
    live, runs, evals = training.progress(services, None)
    assert training.progress(services, 0)[0] == live  # an empty number box arrives as 0
    assert f"Run #{run_id}" in live and "step 2/4" in live and "reward 1" in live
    assert runs[0][:5] == [run_id, "grpo", "stopped", 2, 4]
    assert evals == [["negation_arithmetic", "easy", "10%", "—", None]]


def test_elapsed_seconds():
    assert training.elapsed_seconds([{"step_time": 2.0}, {"step_time": 3.5}, {"loss": 1}]) == 5.5
    assert training.elapsed_seconds([]) is None


def test_charts_are_empty_states_on_a_new_database(services):
    figures = charts_tab.figures(services, None)
    assert len(figures) == 7 and all(not f.data for f in figures)


def test_charts_show_the_bank_and_runs(services, add_failures):
    add_failures(services, 3)
    run_id = services.runs.create("grpo", {})
    services.runs.add_metrics(run_id, 1, {"reward": 0.2, "accuracy": 0.5, "frac_reward_zero_std": 0.25})
    reward, zero_std, by_family, by_mode, failure_map, _, _ = charts_tab.figures(services, run_id)
    assert list(reward.data[0].y) == [0.2] and list(zero_std.data[0].y) == [0.25]
    assert list(by_family.data[0].x) == ["negation_arithmetic"] and list(by_family.data[0].y) == [3]
    assert sum(by_mode.data[0].y) == 3
