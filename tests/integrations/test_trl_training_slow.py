"""Real GRPO steps of the embedded SmolLM2 through TRL's two environment mechanisms (slow).

Tiny on purpose (2 completions of at most 8 tokens per turn, one step): what is tested is that
TRL's own trainer drives ALICE end to end, not that one step teaches anything."""
from __future__ import annotations

import os

import pytest

from alice_app.episode import SYSTEM_PROMPT
from alice_app.integrations.rollout import alice_dataset, episode_reward, make_rollout_func
from alice_app.integrations.trl_env import make_environment_factory, text_answer_reward, tool_ready

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]


@pytest.fixture
def trainer_parts(embedded_model_dir, tmp_path):
    from peft import LoraConfig
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOConfig

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    args = GRPOConfig(output_dir=str(tmp_path / "out"), max_steps=1, per_device_train_batch_size=2,
                      num_generations=2, max_completion_length=8, use_cpu=True, report_to=[], logging_steps=1,
                      save_strategy="no", disable_tqdm=True, beta=0.0, learning_rate=1e-3, seed=0,
                      activation_checkpointing=False)  # TRL's default recomputes activations: slower on a CPU
    lora = LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM")
    model = AutoModelForCausalLM.from_pretrained(embedded_model_dir)
    return model, AutoTokenizer.from_pretrained(embedded_model_dir), args, lora


def test_one_grpo_step_through_environment_factory(services, trainer_parts):
    from trl import GRPOTrainer

    model, tokenizer, args, lora = trainer_parts
    trainer = GRPOTrainer(model=model, processing_class=tool_ready(tokenizer), args=args, peft_config=lora,
                          train_dataset=alice_dataset(["plain_arithmetic"], 4, for_environment=True),
                          environment_factory=make_environment_factory(services), reward_funcs=[text_answer_reward])
    assert [t.__name__ for t in trainer.tools] == ["answer"]
    trainer.train()
    logged = trainer.state.log_history[0]
    assert trainer.state.global_step == 1
    expected = {"rewards/AliceTRLEnvironment/mean", "rewards/text_answer_reward/mean", "tools/call_frequency"}
    assert expected <= set(logged)
    # every rollout reached the environment: reset gave it a task, and the tool or the text answered it
    assert all(env.observation is not None and env.observation["turn"] >= 1 for env in trainer.environments)


def test_one_grpo_step_through_rollout_func_over_the_openenv_client(services, server_url, trainer_parts):
    from trl import GRPOTrainer

    model, tokenizer, args, lora = trainer_parts
    rollout = make_rollout_func(base_url=server_url, max_turns=2)
    seen = []

    def recording_rollout(prompts, trainer):
        out = rollout(prompts, trainer)
        seen.append(out)
        return out

    trainer = GRPOTrainer(model=model, processing_class=tokenizer, args=args, peft_config=lora,
                          train_dataset=alice_dataset(["plain_arithmetic"], 4), rollout_func=recording_rollout,
                          reward_funcs=[episode_reward])
    trainer.train()
    assert trainer.state.global_step == 1
    out = seen[0]
    assert len(out["completion_ids"]) == 2 and all(t in (1, 2) for t in out["turns"])
    for prompt_ids, ids, mask, logps in zip(out["prompt_ids"], out["completion_ids"], out["env_mask"], out["logprobs"]):
        assert len(ids) == len(mask) == len(logps) and set(mask) <= {0, 1} and mask[0] == 1
    for i, turns in enumerate(out["turns"]):
        mask = out["env_mask"][i]
        assert (0 in mask) == (turns == 2) and mask[-1] == 1  # the environment's turn between answers is masked
        # the completion is the chat the server saw, spliced token for token
        state = rollout.backends[i].client.state()
        assert state.turn == turns
        text = tokenizer.decode(out["prompt_ids"][i] + out["completion_ids"][i])
        assert text.startswith(tokenizer.apply_chat_template([{"role": "system", "content": SYSTEM_PROMPT}],
                                                             tokenize=False))
        for turn in state.history:
            assert turn["response"] in text and turn["prompt"] in text
    logged = trainer.state.log_history[0]
    assert logged["completions/mean_length"] <= 2 * 8  # only the model's tokens count (env_mask)
