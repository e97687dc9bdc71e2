"""bench/compare_runs.py on the committed raw history: one arm of runs with different settings."""
import pytest

from bench.compare_runs import FIGURES, main, settings_that_differ

RAW = "assets/learning_history/2026-12-01_mixed-groups-feed+static-aa3fa49_neg-plain_lr3e-4_45steps_3seeds_raw.json"


def test_arms_side_by_side(capsys):
    assert main([f"{RAW}:alice=run8", f"{RAW}:static"]) == 0
    table = capsys.readouterr().out
    assert "| figure | run8 (3 seeds) | " in table and ":static (3 seeds)" in table
    assert all(f"| {key} |" in table for key in FIGURES)
    assert "| penalty_before | 0.35 [0.35–0.35] | 0.35 [0.35–0.35] |" in table


def test_cells_show_every_family_and_level_before_and_after(capsys):
    assert main([f"{RAW}:alice=run8", "--cells"]) == 0
    out = capsys.readouterr().out
    assert "run8 (3 seeds)\n\n| family | level | accuracy before → after | penalty before → after |" in out
    rows = [line for line in out.splitlines() if line.startswith(("| negation_arithmetic |", "| plain_arithmetic |"))]
    assert len(rows) == 6 and "| plain_arithmetic | easy |" in out
    assert rows[-1].endswith("| – → – |")  # plain is a control: it has no penalty of its own


def test_the_settings_that_differ_are_named():
    assert settings_that_differ([{"lr": 1, "k": 8}, {"lr": 3, "k": 8}, {"k": 8}]) == {"lr": [1, 3, "default"]}


@pytest.mark.parametrize("spec, message", [("nofile.json:alice", "No such file"), (f"{RAW}:episode", "no 'episode' arm"),
                                           ("alice", "expected RAW.json:ARM")])
def test_bad_specs_are_refused(spec, message):
    with pytest.raises(SystemExit, match=message):
        main([spec])
