"""`train --config recipe.yaml --report_to tensorboard`: a real one-step run writes TensorBoard
events next to the SQLite metrics (slow: the embedded model trains)."""
from __future__ import annotations

import os

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def test_a_recipe_run_reports_to_tensorboard_and_sqlite(settings, embedded_model_dir, tmp_path, monkeypatch, capsys):
    from alice_app.cli import main
    from alice_app.services import Services

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    os.symlink(embedded_model_dir.parent, settings.models_dir)
    monkeypatch.setenv("ALICE_DATA_DIR", str(settings.data_dir))
    recipe = tmp_path / "tiny.yaml"
    recipe.write_text("steps: 1\nnum_generations: 2\nprompts_per_step: 1\nmax_completion_length: 8\n"
                      "eval_n_per_cell: 0\nwarm_start_prompts: 0\nfamilies: [plain_arithmetic]\nreport_to: [tensorboard]\n")
    assert main(["train", "--config", str(recipe)]) == 0
    events = list((settings.runs_dir / "run-1").rglob("events.out.tfevents.*"))
    assert events, "no TensorBoard event file"
    services = Services.from_settings(settings)
    assert [m["step"] for m in services.runs.metrics(1)] == [1]
    assert services.runs.get(1)["config"]["report_to"] == ["tensorboard"]
    services.close()
