import pytest

from alice_app.training.config import TrainConfig


def test_defaults_validate_and_size_the_batch():
    config = TrainConfig().validate()
    assert config.batch_size == config.prompts_per_step * config.num_generations
    assert "negation_arithmetic" in config.training_families()
    assert "plain_arithmetic" in config.training_families()


@pytest.mark.parametrize("changes, message", [
    ({"mode": "ppo"}, "mode must be one of"),
    ({"feed": "random"}, "feed must be one of"),
    ({"steps": 0}, "steps must be at least 1"),
    ({"steps": 10**9}, "steps must be at most 100000"),
    ({"loss_type": "ppo"}, "loss_type must be one of"),
    ({"epsilon_high": 0.1}, "epsilon_high must be 0"),
    ({"warmup_ratio": 2}, "warmup_ratio must be between 0 and 1"),
    ({"no_format_share": -0.5}, "no_format_share must be between 0 and 1"),
    ({"rephrase_share": 1.5}, "rephrase_share must be between 0 and 1"),
    ({"warm_start_repairs": -2}, "warm_start_repairs must be between 0 and 10,000"),
    ({"feed_lookahead": 3}, "feed_lookahead must be between 0 and 2"),
    ({"feed_zone_replay": 1.5}, "feed_zone_replay must be between 0 and 1"),
    ({"warm_start_prompts": -1}, "warm_start_prompts must be between 0 and 10,000"),
    ({"mode": "episode", "feed": "static"}, "episode mode plays live episodes"),
    ({"worked_replay_unsolved_only": True}, "narrows worked_replay's tasks: set worked_replay too"),
    ({"warm_start_twins": 0.5, "warm_start_source": "samples"}, "warm_start_twins adds control twins to the worked"),
    ({"warm_start_twins": 0.5, "warm_start_prompts": 0}, "needs warm_start_source=worked and warm_start_prompts"),
    ({"num_generations": 1}, "GRPO compares completions"),
    ({"max_completion_length": 0}, "max_completion_length"),
    ({"learning_rate": 0.0}, "learning_rate"),
    ({"beta": -0.1}, "beta must be 0 or more"),
    ({"dpo_beta": 0.0}, "dpo_beta must be positive"),
    ({"temperature": 0.0}, "temperature must be positive"),
    ({"lora_targets": ()}, "lora_targets"),
    ({"checkpoint_every": 0}, "checkpoint_every"),
    ({"families": ("no_such_family",)}, "unknown task family"),
    ({"families": ("plain_arithmetic", "false_claim", "plain_arithmetic")}, "families lists plain_arithmetic more than once"),
    ({"mode": "x" * 1_000_000}, r"mode must be one of .*, not 'x{78}…$"),  # a pasted megabyte is not echoed back
])
def test_invalid_settings_raise_an_actionable_error(changes, message):
    with pytest.raises(ValueError, match=message):
        TrainConfig(**changes).validate()


def test_round_trips_through_a_dict_and_rejects_unknown_keys():
    config = TrainConfig(steps=7, families=("negation_arithmetic",), lora_targets=("q_proj",))
    assert TrainConfig.from_dict(config.to_dict()) == config
    with pytest.raises(ValueError, match="unknown training settings: colour"):
        TrainConfig.from_dict({"colour": "blue"})


@pytest.mark.parametrize("data, message", [
    ({"learning_rate": "abc"}, "learning_rate must be a number, not 'abc'"),
    ({"steps": 2.5}, "steps must be an integer, not 2.5"),
    ({"steps": True}, "steps must be an integer, not True"),
    ({"qlora": 1}, "qlora must be true or false, not 1"),
    ({"families": "negation_arithmetic"}, "families must be a list of names"),
])
def test_from_dict_refuses_values_of_the_wrong_type(data, message):
    with pytest.raises(ValueError, match=message):
        TrainConfig.from_dict(data)


def test_from_dict_takes_an_int_where_a_float_is_expected():
    assert TrainConfig.from_dict({"beta": 0}).beta == 0


def test_maps_onto_trl_grpo_config(tmp_path):
    config = TrainConfig(steps=5, num_generations=3, prompts_per_step=2, max_completion_length=20,
                         learning_rate=2e-5, beta=0.05, temperature=0.7, checkpoint_every=2, seed=9)
    grpo = config.to_grpo_config(str(tmp_path))
    assert (grpo.max_steps, grpo.num_generations, grpo.per_device_train_batch_size) == (5, 3, 6)
    assert (grpo.max_completion_length, grpo.learning_rate, grpo.beta, grpo.temperature) == (20, 2e-5, 0.05, 0.7)
    assert (grpo.save_steps, grpo.seed, grpo.logging_steps) == (2, 9, 1)
    assert grpo.shuffle_dataset is False  # the live feed decides the order
    assert grpo.use_cpu and not grpo.bf16  # this machine has no CUDA
    assert grpo.activation_checkpointing is False  # ~30% slower steps buy nothing at 135M parameters
    assert TrainConfig(activation_checkpointing=True).to_grpo_config(str(tmp_path)).activation_checkpointing


def test_maps_onto_dpo_and_lora_configs(tmp_path):
    config = TrainConfig(mode="dpo", steps=3, dpo_beta=0.2, lora_rank=4, lora_alpha=8, lora_targets=("q_proj",))
    dpo = config.to_dpo_config(str(tmp_path))
    assert (dpo.max_steps, dpo.beta) == (3, 0.2)
    lora = config.lora_config()
    assert (lora.r, lora.lora_alpha, set(lora.target_modules)) == (4, 8, {"q_proj"})
    assert config.use_4bit() is False  # QLoRA only on CUDA


def test_wording_share_is_a_share():
    from alice_app.training.config import TrainConfig

    with pytest.raises(ValueError, match="wording_share must be between 0 and 1"):
        TrainConfig(wording_share=2.0).validate()


def test_working_bonus_is_bounded():
    with pytest.raises(ValueError, match="working_bonus must be between 0 and 1"):
        TrainConfig(working_bonus=-0.1).validate()


def test_only_a_co_evolving_warm_start_repairs_the_bank():
    assert TrainConfig(warm_start_repairs=5).warm_start_repair_count == 5
    assert TrainConfig(warm_start_repairs=5, feed="static").warm_start_repair_count == 0  # never reads the bank
    assert TrainConfig(warm_start_repairs=5, warm_start_prompts=0).warm_start_repair_count == 0  # no warm start


def test_the_warm_start_fine_tunes_at_its_own_rate_or_else_at_grpos():
    assert TrainConfig(learning_rate=3e-4, warm_start_learning_rate=0).fine_tune_learning_rate == 3e-4  # 0: GRPO's
    assert TrainConfig().fine_tune_learning_rate == 1e-4 and TrainConfig().learning_rate == 3e-5  # run 25
    with pytest.raises(ValueError, match=r"warm_start_learning_rate must be 0 \(= learning_rate\) or in"):
        TrainConfig(warm_start_learning_rate=-1e-4).validate()


def test_echo_penalty_is_bounded():
    with pytest.raises(ValueError, match="echo_penalty must be between 0 and 1"):
        TrainConfig(echo_penalty=1.5).validate()
