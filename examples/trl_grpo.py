"""GRPO on ALICE the way TRL's own scripts do it: TrlParser over GRPOConfig + ModelConfig, and ALICE
as the reward function, the multi-turn rollout (rollout_func) or the environment (environment_factory).

    python examples/trl_grpo.py --output_dir runs/trl --max_steps 40 --use_peft --mechanism rollout
    accelerate launch --num_processes 2 examples/trl_grpo.py --output_dir runs/trl --max_steps 40 --use_peft
    python examples/trl_grpo.py --config recipe.yaml          # any of the flags below, as YAML

Every process plays its own episodes on its own database, <alice_data_dir>/alice-rank<N>.db (SQLite
is one machine's database); fold them into one afterwards with
``python -m alice_app bank merge <alice_data_dir>/alice-rank1.db ...``. Without --model_name_or_path
the embedded SmolLM2-135M-Instruct is converted once and used.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

MECHANISMS = ("reward", "rollout", "environment")


@dataclass
class AliceArguments:
    mechanism: str = field(default="reward", metadata={"help": "reward: one-turn GRPO scored by ALICE's verifier; "
                           "rollout: the 5-turn episode as rollout_func (env_mask); environment: environment_factory "
                           "with the answer tool (needs a tool-calling chat template)"})
    families: list[str] = field(default_factory=lambda: ["negation_arithmetic", "plain_arithmetic"],
                                metadata={"help": "ALICE task families of the training prompts"})
    dataset_size: int = field(default=256, metadata={"help": "prompts in the dataset (uniform over families x levels)"})
    alice_data_dir: str = field(default="data/trl", metadata={"help": "where each process's database goes"})
    alice_seed: int = field(default=0, metadata={"help": "seed of the task dataset"})


def main(argv: list[str] | None = None) -> int:
    from trl import GRPOConfig, GRPOTrainer, ModelConfig, TrlParser, get_peft_config

    alice_args, training_args, model_args = TrlParser((AliceArguments, GRPOConfig, ModelConfig)).parse_args_and_config(
        argv)
    if alice_args.mechanism not in MECHANISMS:
        raise SystemExit(f"--mechanism must be one of {', '.join(MECHANISMS)}, not {alice_args.mechanism!r}")
    services = rank_services(alice_args.alice_data_dir)
    model_path = model_args.model_name_or_path or str(embedded_model(alice_args.alice_data_dir))
    trainer = GRPOTrainer(model=model_path, args=training_args, peft_config=get_peft_config(model_args),
                          **mechanism_kwargs(alice_args, services, model_path))
    trainer.train()
    trainer.save_model(training_args.output_dir)
    print(f"rank {rank()}: {services.bank.count()} failures banked in {services.settings.db_path}")
    services.close()
    return 0


def mechanism_kwargs(alice_args: AliceArguments, services, model_path: str) -> dict:
    from alice_app.integrations.rollout import alice_dataset, episode_reward, make_rollout_func
    from alice_app.integrations.trl_env import make_environment_factory, text_answer_reward, tool_ready
    from alice_app.training.rewards import make_reward_function

    for_environment = alice_args.mechanism == "environment"
    dataset = alice_dataset(alice_args.families, alice_args.dataset_size, alice_args.alice_seed,
                            for_environment=for_environment)
    if alice_args.mechanism == "rollout":
        return dict(train_dataset=dataset, rollout_func=make_rollout_func(services), reward_funcs=[episode_reward])
    if for_environment:
        from transformers import AutoTokenizer

        return dict(train_dataset=dataset, processing_class=tool_ready(AutoTokenizer.from_pretrained(model_path)),
                    environment_factory=make_environment_factory(services), reward_funcs=[text_answer_reward])
    return dict(train_dataset=dataset, reward_funcs=[make_reward_function(services.verifier)])


def rank() -> int:
    return int(os.environ.get("RANK", "0"))


def rank_services(data_dir: str):
    from alice_app.config import Settings
    from alice_app.services import Services

    folder = Path(data_dir)
    folder.mkdir(parents=True, exist_ok=True)
    return Services.from_settings(Settings(data_dir=folder, db_path=folder / f"alice-rank{rank()}.db"))


def embedded_model(data_dir: str) -> Path:
    from alice_app.models.loader import ensure_embedded_checkpoint

    return ensure_embedded_checkpoint(Path(data_dir) / "models")  # a file lock makes ranks convert it once


if __name__ == "__main__":
    sys.exit(main())
