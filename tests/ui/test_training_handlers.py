"""Training and Charts tab handlers on real Services (no model is loaded here)."""
from types import SimpleNamespace

import pytest

from alice_app.types import FAILURE_MODES
from alice_app.ui import charts_tab, failure_map, training

REQUEST = SimpleNamespace(client=SimpleNamespace(host="192.0.2.7"))


def form(services, steps="2", **changes):
    """The Training tab's boxes in order: its defaults as a user sees them, with ``changes`` typed in."""
    from alice_app.services import training_form_fields

    values = {"mode": "grpo", "feed": "coevolve", "model": services.settings.model_name, "steps": steps,
              "families": []}
    values.update({name: default if isinstance(default, bool) or choices else str(default)
                   for name, _, default, choices in training_form_fields()})
    values.update({"max_completion_length": "16", "lora_rank": "4", "eval_n_per_cell": "0", **changes})
    return tuple(values.values())


def test_training_start_needs_the_password_and_valid_settings(admin_services):
    services = admin_services
    assert "admin password" in training.start(services, "nope", *form(services), request=REQUEST)
    assert "admin password" in training.stop(services, "nope", request=REQUEST)
    assert "admin password" in training.resume(services, "nope", "", request=REQUEST)
    assert services.runs.list() == []


@pytest.mark.parametrize("changes, message", [  # issue 14: clear messages, never Gradio's "Error"
    ({"steps": "0"}, "Steps must be at least 1, not '0'"),
    ({"steps": "1e9"}, "steps must be at most 100000"),
    ({"steps": "ten"}, "Steps: 'ten' is not a number"),
    ({"steps": ""}, "Steps is blank"),
    ({"learning_rate": "inf"}, "learning_rate: 'inf' is not a finite number"),
    ({"lora_rank": "18446744073709551616"}, "lora_rank must be between 1 and 256"),
    ({"prompts_per_step": "1e9"}, "prompts_per_step must be between 1 and 256"),
    ({"num_generations": "2.5"}, "num_generations must be a whole number"),
    ({"num_generations": "65"}, "num_generations must be between 2 and 64"),
    ({"eval_n_per_cell": "1001"}, "eval_n_per_cell must be between 0 and 1,000"),
    ({"temperature": "0.001"}, "temperature must be between 0.01 and 5"),
    ({"beta": "11"}, "beta must be between 0 and 10"),
    ({"learning_rate": "1e-9"}, "learning_rate must be in [1e-8, 1)"),
    ({"warmup_ratio": "1.5"}, "warmup_ratio must be between 0 and 1"),
    ({"lr_schedule": "<script>"}, "lr_schedule must be one of constant, linear, cosine"),
    ({"model": "./no/such/folder"}, "neither a local model folder"),
    ({"model": "not a model id"}, "neither a local model folder"),
    ({"model": "a" * 300}, "Model to train: 'aaaa"),  # longer than a file name may be: not Gradio's "Error"
    ({"model": "9" * 1_000_000}, "cannot be a local folder (File name too long)"),
])
def test_a_bad_form_is_refused_before_start_with_the_box_named(services, changes, message):
    status = training.start(services, "", *form(services, **changes), request=REQUEST)
    assert status.startswith("⚠") and message in status
    assert services.runs.list() == []
    assert message in training.expected_time(services, *form(services, **changes))


def test_the_expected_time_is_shown_before_start(services):
    text = training.expected_time(services, *form(services, steps="40"))
    # no run measured here: the learning bench's range of step times (8 completions a step), not one guess
    # ... and the default warm start (384 tasks' worked solutions in 3 wordings and up to 192 repairs of the bank
    # in one: about the time of 48 + 8 steps)
    assert ("Expected: about **30m 44s–2h 30m**: 40 steps × 19.0–94.0 s, up to 17m 44s–1h 27m warm start (about the "
            "time of 56 steps)") in text
    static = training.expected_time(services, *form(services, steps="40", feed="static"))
    assert "(about the time of 48 steps)" in static  # the static feed never reads the bank
    assert "learning bench's step times on a shared 2-core CPU" in text and "feed probe" not in text
    # a probe of 2 tasks in each of the 7 families x 3 levels: 42 groups of generation only, about 15 steps' time
    probed = training.expected_time(services, *form(services, steps="40", feed_probe="2"))
    assert "up to 4m 39s–23m 02s feed probe (about the time of 15 steps)" in probed
    assert "feed probe" not in training.expected_time(services, *form(services, steps="40", feed_probe="2",
                                                                       feed="static"))
    assert "redraw_uniform" not in text
    redrawn = training.expected_time(services, *form(services, steps="40", redraw_uniform="2"))
    assert "up to 2 more times (redraw_uniform), so a step may take up to 3× the time above." in redrawn
    bigger = training.expected_time(services, *form(services, steps="40", num_generations="16"))
    assert "40 steps × 38.0–188.0 s" in bigger and "scaled to 16 completions a step" in bigger
    run_id = services.runs.create("grpo", {"steps": 4})
    services.runs.set_status(run_id, "running")
    services.runs.add_metrics(run_id, 1, {"step_time": 3.0})
    services.runs.set_status(run_id, "stopped")
    assert f"40 steps × 3.0 s" in training.expected_time(services, *form(services, steps="40"))
    assert f"measured in run #{run_id}" in training.expected_time(services, *form(services, steps="40"))
    scaled = training.expected_time(services, *form(services, steps="40", num_generations="16"))
    assert "40 steps × 6.0 s" in scaled and "(8 completions a step, scaled to 16)" in scaled
    assert "40 steps × 6.0 s" in training.expected_time(services, *form(services, steps="40", mode="episode"))
    warm = training.expected_time(services, *form(services, steps="40", warm_start_prompts="16",
                                                  warm_start_source="samples", warm_start_repairs="0"))
    assert "up to 48s warm start (about the time of 16 steps)" in warm  # 16 prompts, 1 per step, 3.0 s a step
    repairs = training.expected_time(services, *form(services, steps="40", warm_start_prompts="16",
                                                     warm_start_source="samples", warm_start_repairs="8"))
    assert "(about the time of 24 steps)" in repairs  # each repair is sampled as a prompt is
    worked = training.expected_time(services, *form(services, steps="40", warm_start_prompts="16",
                                                    warm_start_repairs="0"))
    assert "up to 6s warm start (about the time of 2 steps)" in worked  # nothing sampled: 8 tasks a step's time


def test_the_form_offers_every_recipe_setting_and_passes_it_on(services):
    """The settings boxes come from TrainConfig: what the learning bench sets (lr schedule, prompts per
    step, rephrased prompts) can be set in the tab, and reaches the config as typed."""
    from alice_app.services import training_form_fields

    names = [name for name, *_ in training_form_fields()]
    assert {"prompts_per_step", "lr_schedule", "warmup_ratio", "rephrase_share", "loss_type", "qlora"} <= set(names)
    assert not {"mode", "steps", "families", "use_vllm"} & set(names)
    values = form(services, prompts_per_step="1", lr_schedule="cosine", warmup_ratio="0.1", rephrase_share="0.5",
                  mask_truncated_completions=True)
    config = training.config_from_form(services.settings, *values)
    assert (config.prompts_per_step, config.lr_schedule, config.warmup_ratio, config.rephrase_share) == \
        (1, "cosine", 0.1, 0.5)
    assert config.mask_truncated_completions and config.steps == 2 and config.lora_rank == 4


def test_the_families_box_restricts_the_run_and_names_an_unknown_family(services):
    config = training.config_from_form(services.settings, *form(services, families=["plain_arithmetic"]))
    assert config.families == ("plain_arithmetic",) and config.training_families() == ["plain_arithmetic"]
    assert "3 family × level cells" in training.expected_time(services, *form(services, families=["plain_arithmetic"]))
    assert training.config_from_form(services.settings, *form(services)).families == ()  # empty: the default mix
    status = training.start(services, "", *form(services, families=["no_such_family"]), request=REQUEST)
    assert status.startswith("⚠") and "unknown task family" in status and services.runs.list() == []
    assert len(training.expected_time(services, *form(services, families=["x" * 1_000_000]))) < 400
    assert "more than once" in training.expected_time(services, *form(services, families=["false_claim"] * 100_000))
    # an API client may send one name as a string rather than a list
    assert training.config_from_form(services.settings, *form(services, families="false_claim")).families == (
        "false_claim",)


def test_a_recipe_fills_the_form_and_the_form_starts_what_the_recipe_says(services):
    from alice_app.services import training_form_fields, training_recipe
    from alice_app.training.recipes import load_recipe, recipe_paths

    assert {"negation_repair", "grpo_smollm2"} <= set(recipe_paths())
    *values, message = training.apply_recipe("negation_repair")
    assert "Loaded recipe **negation_repair**" in message and "Not in this form" not in message
    mode, feed, steps, families, *boxes = values
    config = training.config_from_form(services.settings, mode, feed, services.settings.model_name, steps, families,
                                       *boxes)
    recipe = load_recipe(recipe_paths()["negation_repair"])
    assert {key: config.to_dict()[key] for key in recipe} == {
        key: list(v) if isinstance(v, tuple) else v for key, v in training_recipe("negation_repair").items()
        if key in recipe}
    assert len(boxes) == len(training_form_fields())
    # a recipe setting the form has no box for is named, not silently dropped
    assert "report_to = ('tensorboard',)" in training.apply_recipe("grpo_smollm2")[-1]


def test_an_empty_or_unknown_recipe_changes_nothing(services):
    import gradio as gr

    empty = training.apply_recipe("")
    assert empty[-1] == "" and all(isinstance(v, type(gr.skip())) for v in empty[:-1])
    unknown = training.apply_recipe("../../etc/passwd")
    assert unknown[-1].startswith("⚠ no recipe '../../etc/passwd'; the recipes are")


def test_stop_without_a_run(services):
    assert training.stop(services, "") == "No run is active in this app."


def test_poll_reads_runs_metrics_and_evals(services):
    live, chart, runs, heatmap, summary, adapter = training.poll(services, None)
    assert "No training run yet" in live and not chart.data and runs == [] and summary == ""
    run_id = services.runs.create("grpo", {"steps": 4, "eval_n_per_cell": 2})
    services.runs.set_status(run_id, "running")
    services.runs.set_progress(run_id, 2, 4)
    for step in (1, 2):
        services.runs.add_metrics(run_id, step, {"reward": 0.5 * step, "accuracy": 0.25, "step_time": 10.0})
    services.runs.save_eval(run_id, "before", {"negation_arithmetic": {"easy": 0.1, "medium": 0.0}})
    services.runs.set_status(run_id, "stopped")
    live, chart, runs, heatmap, summary, adapter = training.poll(services, None)
    assert training.poll(services, 0)[0] == live  # an empty number box arrives as 0
    assert f"Run #{run_id}" in live and "training steps 2/4" in live and "reward 1" in live
    assert runs[0][:5] == [run_id, "grpo", "stopped", 2, 4]
    assert [list(trace.y) for trace in chart.data][:2] == [[0.5, 1.0], [0.25, 0.25]]
    assert "stopped at step 2/4" in summary and "no after-evaluation" in summary  # says why there is no "after"
    services.runs.save_eval(run_id, "after", {"negation_arithmetic": {"easy": 0.3, "medium": 0.0}})
    services.runs.set_checkpoint(run_id, "/tmp/adapter-x")
    _, _, _, heatmap, summary, adapter = training.poll(services, str(run_id))
    assert "5% → 15%" in summary and "1 better, 0 worse" in summary
    assert "Distraction penalty" not in summary  # no control twin was evaluated
    assert list(heatmap.data[0].z[0]) == [20.0, 0.0] and heatmap.data[0].text[0][0] == "10% → 30%"
    assert "eval --adapter /tmp/adapter-x" in adapter and adapter.startswith("Latest checkpoint")  # stopped run
    services.runs.set_status(run_id, "completed")
    assert training.poll(services, str(run_id))[5].startswith(f"Adapter of run #{run_id}")


def test_adapter_download_packs_the_folder(services, tmp_path):
    folder = tmp_path / "adapter"
    folder.mkdir()
    (folder / "adapter_config.json").write_text("{}")
    run_id = services.runs.create("grpo", {})
    assert "no adapter yet" in training.download_adapter(services, str(run_id))[1]
    services.runs.set_checkpoint(run_id, str(folder))
    path, message = training.download_adapter(services, str(run_id))
    assert path.endswith(".zip") and "packed" in message
    import zipfile
    assert zipfile.ZipFile(path).namelist() == ["adapter_config.json"]


def test_only_a_completed_runs_adapter_can_play_and_the_base_model_comes_back(services, admin_services, tmp_path):
    run_id = services.runs.create("grpo", {})
    assert "Only a completed run" in training.play_adapter(services, str(run_id), None, REQUEST)
    services.runs.set_checkpoint(run_id, str(tmp_path / "missing"))
    services.runs.set_status(run_id, "completed")
    message = training.play_adapter(services, str(run_id), None, REQUEST)  # a folder that is not an adapter
    assert "not a LoRA adapter folder" in message and services.loaded_policy is None  # nothing loaded or swapped in
    sentinel = SimpleNamespace(model_id="trained")
    services.use_policy(sentinel)
    assert "answers are" in training.play_adapter(services, "", None, REQUEST, base=True)
    assert services.loaded_policy is None  # the configured model loads again on its next use
    assert "password" in training.play_adapter(admin_services, "", "wrong", REQUEST, base=True).lower()


def test_charts_are_empty_states_on_a_new_database(services):
    figures = charts_tab.figures(services, None)
    assert len(figures) == 9 and all(not f.data for f in figures)


def test_charts_show_the_bank_and_runs(services, add_failures):
    add_failures(services, 3)
    run_id = services.runs.create("grpo", {})
    services.runs.add_metrics(run_id, 1, {"reward": 0.2, "accuracy": 0.5, "frac_reward_zero_std": 0.25})
    _, _, reward, zero_std, by_family, by_mode, _, mode_map, _ = charts_tab.figures(services, run_id)
    assert list(reward.data[0].y) == [0.2] and list(zero_std.data[0].y) == [0.25]
    assert reward.layout.xaxis.tickformat == "d" and reward.layout.xaxis.dtick == 1  # bug 8: no tick at 1.2
    assert list(by_family.data[0].x) == ["negation_arithmetic"] and list(by_family.data[0].y) == [3]
    assert sum(by_mode.data[0].y) == 3 and list(mode_map.data[0].y) == ["negation_arithmetic"]


def test_failure_map_counts_and_cell_clicks(services, add_failures):
    add_failures(services, 3)
    add_failures(services, 2, family="false_claim")
    rows = failure_map.map_rows(failure_map.mode_counts(services))
    assert [r[0] for r in rows] == ["false_claim", "negation_arithmetic"] and [r[-1] for r in rows] == [2, 3]
    mode = FAILURE_MODES[2]
    assert failure_map.cell_filters([1, 3], rows[1]) == ("negation_arithmetic", mode)
    assert failure_map.cell_filters([0, 0], rows[0]) == ("false_claim", "(all)")
    assert failure_map.cell_filters([0, len(failure_map.COLUMNS) - 1], rows[0]) == ("false_claim", "(all)")
    assert failure_map.mode_counts(services, level="hard") == []


def coevolve_form(services, **changes):
    boxes = {"rounds": "1", "challenger_steps": "2", "solver_steps": "2", "k": "4", **changes}
    return form(services, mode="coevolve") + tuple(boxes.values())


@pytest.mark.parametrize("changes, message", [
    ({"rounds": "0"}, "Rounds must be between 1 and 100,000"),
    ({"k": "two"}, "K: 'two' is not a number"),
    ({"solver_steps": "1.5"}, "Solver steps must be a whole number"),
    ({"challenger_warm_start": "-1"}, "Challenger warm start must be between 0 and 100,000"),
    ({"challenger_warm_start": "5000"}, "challenger_warm_start must lie in 0..1000"),
])
def test_a_bad_coevolution_form_is_refused_with_the_box_named(services, changes, message):
    assert message in training.expected_time(services, *coevolve_form(services, **changes))
    assert message in training.start(services, "", *coevolve_form(services, **changes), request=REQUEST)
    assert services.runs.list() == []


def test_coevolution_mode_runs_in_the_background_job_round_by_round(services, monkeypatch):
    from alice_app.challenger import coevolve
    from alice_app.training import runner

    rounds = []

    def fake_round(services_, config, run_id, round_no, challenger, solver, folder, taught=()):
        rounds.append(round_no)
        return {"round": round_no, "challenger": {"validity_rate": 0.5, "novelty_rate": 1.0, "zone_rate": 0.25,
                                                  "mean_reward": 0.1}, "solver_train_pass_rate": 0.4}

    # Only the model and the GRPO phases are replaced: the job, its lock, the runs table are real.
    monkeypatch.setattr(runner, "load_training_model", lambda settings, config: (None, None))
    monkeypatch.setattr(coevolve, "_challenger_role", lambda services_, config: None)
    monkeypatch.setattr(coevolve, "run_round", fake_round)
    assert "2 round(s) of 2 challenger and 2 solver" in training.expected_time(
        services, *coevolve_form(services, rounds="2"))
    status = training.start(services, "", *coevolve_form(services, rounds="2"), request=REQUEST)
    assert status.startswith("Run #"), status
    assert services.training.wait(timeout=30)
    run = services.runs.list(limit=1)[0]
    assert run["kind"] == "coevolve" and run["status"] == "completed" and run["step"] == 2 and rounds == [1, 2]
    assert services.runs.metrics(run["id"])[-1]["solver_train_pass_rate"] == 0.4
    assert "co-evolution run" in training.resume(services, "", str(run["id"]), request=REQUEST)
    live = training.poll(services, str(run["id"]))[0]
    assert "2 of 2 round(s) finished" in live and "training steps" not in live


def test_the_eval_summary_gives_the_distraction_penalty_when_twins_were_evaluated(services):
    from alice_app.tasks.controls import twin_name

    twin = twin_name("negation_arithmetic")
    run_id = services.runs.create("grpo", {"steps": 1})
    services.runs.save_eval(run_id, "before", {"negation_arithmetic": {"easy": 0.2, "medium": 0.0, "hard": 0.0},
                                               twin: {"easy": 0.6, "medium": 0.4, "hard": 0.0}})
    services.runs.save_eval(run_id, "after", {"negation_arithmetic": {"easy": 0.5, "medium": 0.3, "hard": 0.0},
                                              twin: {"easy": 0.6, "medium": 0.4, "hard": 0.0}})
    services.runs.set_status(run_id, "completed")
    summary = training.poll(services, str(run_id))[4]
    # before: (0.4 + 0.4) / 2 = 0.40; after: (0.1 + 0.1) / 2 = 0.10; closed by 75 %
    assert "Distraction penalty (control − family accuracy, easy/medium) **+0.40 → +0.10** (closed by 75%)" in summary
