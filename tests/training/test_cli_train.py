import pytest

from alice_app.cli import main
from alice_app.cli.train import before_after_rows


@pytest.mark.parametrize("argv, message", [
    (["train", "--steps", "0"], "steps must be at least 1"),
    (["train", "--num-generations", "1"], "GRPO compares completions"),
    (["train", "--families", "nope"], "unknown task family 'nope'"),
])
def test_bad_settings_exit_2_with_one_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_unknown_mode_is_a_usage_error(capsys, tmp_path):
    # A field with fixed choices gets them as the flag's choices (TrainConfig's metadata): exit code 2 and why
    with pytest.raises(SystemExit) as exited:
        main(["train", "--mode", "ppo"])
    assert exited.value.code == 2
    assert "invalid choice: 'ppo' (choose from 'grpo', 'episode', 'dpo')" in capsys.readouterr().err
    recipe = tmp_path / "recipe.yaml"  # a recipe is judged by TrainConfig.validate
    recipe.write_text("mode: ppo\n")
    assert main(["train", "--config", str(recipe)]) == 2
    assert "mode must be one of grpo, episode, dpo, not 'ppo'" in capsys.readouterr().err


def test_resuming_an_unknown_run_says_so(capsys, settings, monkeypatch):
    monkeypatch.setenv("ALICE_DATA_DIR", str(settings.data_dir))
    assert main(["train", "--resume", "42"]) == 2
    assert "no training run with id 42" in capsys.readouterr().err


def test_before_after_rows_show_the_change():
    rows = before_after_rows({"before": {"f": {"easy": 0.25, "medium": 0.0, "hard": 0.0}},
                              "after": {"f": {"easy": 0.75, "medium": 0.5, "hard": 0.0}}})
    assert rows[0] == {"family": "f", "level": "easy", "before": "0.25", "after": "0.75", "change": "+0.50"}
    assert [r["change"] for r in rows] == ["+0.50", "+0.50", "+0.00"]
