from alice_app.ui import progress


def test_the_phase_bar_shows_the_warm_start_only_for_runs_that_have_one():
    plain = {"status": "running", "step": 0, "total": 10, "config": {}}
    warm = {**plain, "config": {"warm_start_prompts": 16}}
    assert "warm start" not in progress.phase_bar(plain, "training")
    bar = progress.phase_bar(warm, "warm-start")
    assert "✓ before-evaluation → ▶ warm start → training steps 0/10" in bar
    assert "✓ warm start → ▶ training steps 3/10" in progress.phase_bar({**warm, "step": 3}, None)


def test_setup_time_leaves_the_warm_start_out_and_the_panel_reports_it():
    run = {"id": 1, "kind": "grpo", "status": "running", "step": 1, "total": 4, "started_at": "2026-12-01T00:00:00Z",
           "config": {"warm_start_prompts": 8, "eval_n_per_cell": 2}}
    metrics = [{"step": 0, "ts": "2026-12-01T00:01:40Z", "warm_start_prompts": 8, "warm_start_samples": 32,
                "warm_start_correct": 9, "warm_start_kept": 6, "warm_start_steps": 2, "warm_start_mean_loss": 0.4123,
                "warm_start_seconds": 70.0},
               {"step": 1, "ts": "2026-12-01T00:01:50Z", "loss": 0.1, "reward": 0.5, "step_time": 10.0}]
    assert progress.setup_seconds(run, metrics) == 30.0  # 100 s to the warm start's end, less its 70 s
    panel = progress.format_live(run, metrics, "training")
    assert ("Warm start: 6 correct answers kept of 32 samples (8 prompts) · 2 fine-tuning steps · loss 0.412 · "
            "1m 10s") in panel
    assert "Last step: reward 0.5" in panel


def test_a_worked_warm_start_is_reported_as_worked_solutions_not_samples():
    row = {"warm_start_prompts": 96, "warm_start_samples": 0, "warm_start_correct": 0, "warm_start_kept": 281,
           "warm_start_steps": 71, "warm_start_mean_loss": 0.12, "warm_start_seconds": 260.0}
    line = progress.warm_start_line(row)
    assert line.startswith("Warm start: 281 worked solutions (96 tasks in all their wordings) · 71 fine-tuning steps")
    assert "samples" not in line


def test_the_feed_probe_is_reported_under_the_warm_start():
    run = {"status": "running", "step": 1, "total": 4, "config": {"warm_start_prompts": 8}, "kind": "grpo"}
    metrics = [{"step": 0, "warm_start_prompts": 8, "warm_start_kept": 24, "warm_start_steps": 6,
                "warm_start_seconds": 70.0},
               {"step": 0, "feed_probe_groups": 21, "feed_probe_mixed": 9, "feed_probe_completions": 168,
                "feed_probe_seconds": 125.0},
               {"step": 1, "step_time": 12.0, "reward": 0.5}]
    panel = progress.format_live(run, metrics, "training")
    assert ("Feed probe: 21 groups of 168 answers, 9 with mixed outcomes (the cells the first steps train) · 2m 05s"
            in panel)
    assert panel.index("Warm start:") < panel.index("Feed probe:")
