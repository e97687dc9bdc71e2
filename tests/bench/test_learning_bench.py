"""bench/learning.py: its arguments and its summary (pure), and one real end-to-end quick run (slow)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def bench(load_script):
    return load_script("bench/learning.py")


def test_shared_settings_reach_both_arms_and_bad_ones_fail_before_anything_loads(bench, capsys):
    args = bench.parse_args(["--steps", "7", "--set", "learning_rate=1e-4", "--set", "temperature=0.7",
                             "--families", "negation_arithmetic"])
    assert args.settings == {"learning_rate": 1e-4, "temperature": 0.7, "families": ["negation_arithmetic"]}
    command = bench.child_command(args, "alice", Path("x.json"))
    assert "--set=learning_rate=1e-4" in command and command[-2:] == ["--families", "negation_arithmetic"]
    assert bench.parse_args(command[2:]).settings == args.settings  # the child reads what the parent meant
    for bad, message in [(["--set", "lr=1"], "unknown training settings: lr"),
                         (["--set", "learning_rate"], "FIELD=VALUE"),
                         (["--set", "steps=3"], "not --set: steps"),
                         (["--set", "temperature=warm"], "temperature must be a number")]:
        with pytest.raises(SystemExit):
            bench.parse_args(bad)
        assert message in capsys.readouterr().err


def _arm(before: float, curve: list[tuple[int, float]], after: float, zero_std: list[float]) -> dict:
    table = lambda acc: {"negation_arithmetic": {"easy": acc, "medium": acc, "hard": acc}}  # noqa: E731
    return {"config": {"steps": 10}, "before": table(before), "after": table(after),
            "curve": [{"step": s, "table": table(a)} for s, a in curve],
            "metrics": [{"step": i + 1, "frac_reward_zero_std": z, "step_time": 1.0} for i, z in enumerate(zero_std)],
            "final_levels": {}, "banked_failures": 0, "train_seconds": 10.0}


def test_summary_measures_steps_to_targets_and_the_zero_std_ratio(bench):
    args = bench.parse_args(["--steps", "10"])
    arms = {"alice": _arm(0.0, [(4, 0.5), (8, 0.6)], 0.7, [0.1, 0.3]),
            "static": _arm(0.0, [(4, 0.2), (8, 0.3)], 0.4, [0.4, 0.6]),
            "overhead": {"ratio": 1.0}}
    summary = bench.summarize(arms, args)
    assert summary["alice"]["steps_to_50pct_negation"] == 4
    assert summary["static"]["steps_to_50pct_negation"] is None
    assert summary["alice_steps_to_static_final_mean"] == 4  # ALICE passed 0.4 at step 4 of 10
    assert summary["alice_steps_to_static_final_mean_fraction"] == 0.4
    assert summary["zero_std_ratio"] == pytest.approx(0.2 / 0.5)
    table = bench.markdown_table(summary)
    assert "| negation_arithmetic | 0.00 / 0.00 / 0.00 | 0.70 / 0.70 / 0.70 | 0.40 / 0.40 / 0.40 |" in table
    assert "| steps for ALICE to reach the static arm's final mean | – | 4 (0.40 of the budget) | – |" in table


def test_a_static_arm_that_never_improved_is_not_reached_at_step_0(bench):
    arms = {"alice": _arm(0.2, [(5, 0.1)], 0.3, [0.0]), "static": _arm(0.2, [(5, 0.1)], 0.2, [0.5]),
            "overhead": {"ratio": 1.0}}
    assert bench.summarize(arms, bench.parse_args(["--steps", "10"]))["alice_steps_to_static_final_mean"] is None


@pytest.mark.slow
def test_a_quick_run_trains_both_arms_for_real_and_writes_json_and_plots(tmp_path):
    completed = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "learning.py"), "--quick", "--families", "negation_arithmetic",
         "--out", str(tmp_path)], capture_output=True, text=True, timeout=1200, cwd=ROOT)
    assert completed.returncode == 0, completed.stderr[-3000:]
    summary = json.loads((tmp_path / "learning_results.json").read_text())
    for arm in ("alice", "static"):
        assert len(summary[arm]["per_step"]) == 4 and set(summary[arm]["after"]) == {"negation_arithmetic"}
    assert summary["config"]["families"] == ["negation_arithmetic"]
    assert summary["overhead"]["ratio"] > 0
    assert {p.name for p in tmp_path.glob("learning_*.png")} == {
        "learning_curves.png", "learning_zero_std.png", "learning_before_after.png"}
    assert "| negation_arithmetic |" in (tmp_path / "learning_table.md").read_text()
    assert "step-time ratio" in completed.stdout
