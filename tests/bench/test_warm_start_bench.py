"""bench/warm_start.py: its arguments (fast) and one real tiny run on the embedded model (slow)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def bench(load_script):
    return load_script("bench/warm_start.py")


def test_the_recipe_the_settings_and_the_seed_make_one_validated_config(bench):
    args = bench.parse_args(["--seed", "3", "--prompts", "8", "--set", "learning_rate=1e-4",
                             "--families", "negation_arithmetic", "plain_arithmetic"])
    [config] = args.configs
    assert (config.seed, config.warm_start_prompts, config.warm_start_source) == (3, 8, "worked")
    assert config.learning_rate == 1e-4 and config.rephrase_share == 0.5  # the flag over the recipe's 3e-4
    assert config.training_families() == ["negation_arithmetic", "plain_arithmetic"]
    assert len(bench.parse_args([]).configs[0].training_families()) == 7  # not the recipe's three families
    assert [c.seed for c in bench.parse_args(["--seed", "2", "--seeds", "3"]).configs] == [2, 3, 4]


def test_the_figures_a_change_is_judged_by_are_summed_up_over_the_seeds(bench):
    runs = [{"paraphrases": {"correct": c, "echo_distractor": e}, "mean_accuracy": a, "mean_penalty": p}
            for c, e, a, p in [(0.5, 0.1, 0.6, 0.2), (0.4, 0.2, 0.5, None)]]
    summary = bench.across_seeds(runs)
    assert summary["paraphrases_correct"]["mean"] == pytest.approx(0.45)
    assert (summary["paraphrases_echo"]["min"], summary["paraphrases_echo"]["max"]) == (0.1, 0.2)
    assert summary["mean_penalty"]["mean"] == 0.2 and summary["mean_penalty"]["values"] == [0.2, None]


def test_seeds_run_side_by_side_are_joined_and_summed_up_again(bench, tmp_path, capsys):
    def raw(name, *seeds):
        runs = [{"seed": seed, "paraphrases": {"correct": 0.5 + seed / 10, "echo_distractor": 0.1},
                 "mean_accuracy": 0.6, "mean_penalty": 0.1, "replies": []} for seed in seeds]
        (tmp_path / name).write_text(json.dumps({"across_seeds": bench.across_seeds(runs), "runs": runs}))
        return str(tmp_path / name)

    joined = tmp_path / "joined.json"
    assert bench.main(["--from-raw", raw("a.json", 0), raw("b.json", 1, 2), "--out", str(joined)]) == 0
    written = json.loads(joined.read_text())
    assert [run["seed"] for run in written["runs"]] == [0, 1, 2]
    assert written["across_seeds"]["paraphrases_correct"]["mean"] == pytest.approx(0.6)
    assert json.loads(capsys.readouterr().out)["across_seeds"] == written["across_seeds"]
    with pytest.raises(SystemExit, match="a seed appears twice"):
        bench.main(["--from-raw", raw("c.json", 0), raw("d.json", 0)])


@pytest.mark.parametrize("argv, message", [
    (["--prompts", "0"], "--prompts, --eval-n-per-cell and --seeds must be >= 1"),
    (["--seeds", "0"], "--seeds must be >= 1"),
    (["--seed", "-1"], "seed"),
    (["--families", "rg_basic_arithmetic"], "has no control twin"),
    (["--set", "learning_rate=fast"], "learning_rate must be a number"),
    (["--config", "/nonexistent.yaml"], "does not exist"),
    (["--out", "/tmp"], "--out must be a file in an existing folder"),
    (["--from-raw", "/nonexistent.json"], "--from-raw: no such file: /nonexistent.json"),
])
def test_bad_arguments_fail_before_anything_loads(bench, argv, message, capsys):
    with pytest.raises(SystemExit) as raised:
        bench.parse_args(argv)
    assert raised.value.code == 2 and message in capsys.readouterr().err


@pytest.mark.slow
def test_a_tiny_run_teaches_and_measures_for_real(tmp_path):
    out = tmp_path / "warm.json"
    completed = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "warm_start.py"), "--prompts", "4", "--eval-n-per-cell", "1",
         "--paraphrases", "6", "--families", "double_negation", "plain_arithmetic", "--out", str(out)],
        capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert completed.returncode == 0, completed.stderr[-3000:]
    written = json.loads(out.read_text())
    [result] = written["runs"]
    assert written["across_seeds"]["paraphrases_correct"]["values"] == [result["paraphrases"]["correct"]]
    assert result["warm_start"]["warm_start_kept"] >= 8 and result["warm_start"]["warm_start_steps"] >= 2
    assert set(result["accuracy"]) == {"double_negation", "plain_arithmetic"}
    assert set(result["control"]) == {"double_negation"} and result["mean_penalty"] is not None
    assert result["paraphrases"]["n"] == 6 and len(result["replies"]) == 6
    parity = result["paraphrases"]["negation_parity"]  # double_negation trained: the parity set is asked too
    assert parity["n"] == 6 and set(parity["by_idea"]) == {"odd_negations", "even_negations"} and parity["replies"]
    assert written["across_seeds"]["parity_odd"]["values"] == [parity["by_idea"]["odd_negations"]]
    assert json.loads(completed.stdout)["runs"][0]["mean_accuracy"] == result["mean_accuracy"]
