"""The train command's flags come from TrainConfig (TRL's parser), recipes are YAML, flags win."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from alice_app.cli import build_parser, main
from alice_app.cli.train import config_from_args
from alice_app.training.config import TrainConfig

ROOT = Path(__file__).resolve().parents[2]


def parse(*argv: str) -> TrainConfig:
    return config_from_args(build_parser().parse_args(["train", *argv]))


def test_every_field_is_a_flag_with_the_fields_own_help():
    text = build_parser()._subparsers._group_actions[0].choices["train"].format_help()
    for field in dataclasses.fields(TrainConfig):
        assert f"--{field.name}" in text, field.name
    assert "completions per prompt (the GRPO group size k)" in text  # from the field's metadata


def test_flags_parse_into_a_validated_config_in_both_spellings():
    config = parse("--num-generations", "3", "--max_completion_length", "20", "--families", "plain_arithmetic",
                   "negation_arithmetic", "--no_qlora", "--report_to", "tensorboard")
    assert config.num_generations == 3 and config.max_completion_length == 20 and not config.qlora
    assert config.families == ("plain_arithmetic", "negation_arithmetic") and config.report_to == ("tensorboard",)
    assert parse() == TrainConfig()  # no flag, no recipe: the dataclass defaults


def test_the_example_recipe_loads_and_a_flag_overrides_it():
    recipe = ROOT / "examples" / "recipes" / "grpo_smollm2.yaml"
    config = parse("--config", str(recipe), "--steps", "3")
    assert config.steps == 3 and config.families == ("negation_arithmetic", "plain_arithmetic")
    assert config.report_to == ("tensorboard",) and config.learning_rate == 1e-4


def test_every_example_recipe_is_a_valid_config():
    recipes = sorted((ROOT / "examples" / "recipes").glob("*.yaml"))
    assert len(recipes) >= 2
    for recipe in recipes:
        parse("--config", str(recipe))  # raises on an unknown or invalid setting
    measured = parse("--config", str(ROOT / "examples" / "recipes" / "negation_repair.yaml"))
    assert (measured.lr_schedule, measured.rephrase_share, measured.prompts_per_step) == ("cosine", 0.5, 1)


@pytest.mark.parametrize("text, message", [
    ("steps: many\n", "steps must be an integer"),
    ("stepz: 3\n", "unknown training settings: stepz"),
    ("- steps\n", "must be a YAML mapping"),
    ("steps: [1\n", "is not valid YAML"),
    ("report_to: [mlflow]\n", "report_to takes tensorboard, trackio, wandb"),
    ("use_vllm: true\nvllm_mode: remote\n", "vllm_mode must be one of colocate, server"),
])
def test_a_bad_recipe_is_a_clear_error(tmp_path, capsys, text, message):
    recipe = tmp_path / "bad.yaml"
    recipe.write_text(text)
    assert main(["train", "--config", str(recipe)]) == 2
    assert message in capsys.readouterr().err


def test_a_missing_recipe_says_so(capsys):
    assert main(["train", "--config", "/nonexistent/recipe.yaml"]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_vllm_and_trackers_reach_trls_config():
    config = TrainConfig(use_vllm=True, vllm_mode="server", report_to=("tensorboard",)).validate()
    grpo = config.to_grpo_config("/tmp/x")
    assert grpo.use_vllm and grpo.vllm_mode == "server" and grpo.report_to == ["tensorboard"]
