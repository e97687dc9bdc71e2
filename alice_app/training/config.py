"""Training settings: one dataclass that maps onto TRL's GRPOConfig / DPOConfig and PEFT's LoraConfig.

Torch, TRL and PEFT are imported inside the ``to_*`` methods only, so building and validating a
config stays instant (the UI and the CLI do it before anything heavy happens).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Mapping

from alice_app.config import EVAL_MAX_TOKENS

MODES: tuple[str, ...] = ("grpo", "episode", "dpo")
FEEDS: tuple[str, ...] = ("coevolve", "static")
LOSS_TYPES: tuple[str, ...] = ("grpo", "dapo", "dr_grpo", "bnpo")
LR_SCHEDULES: tuple[str, ...] = ("constant", "linear", "cosine")
REPORTERS: tuple[str, ...] = ("tensorboard", "trackio", "wandb")  # TRL/transformers integrations
VLLM_MODES: tuple[str, ...] = ("colocate", "server")
WARM_START_SOURCES: tuple[str, ...] = ("samples", "worked")
MAX_ZONE_REPLAYS = 4  # the co-evolving feed replays a task at most this often: the goal is the family, not one item
MAX_STEPS = 100_000  # far beyond any run this workbench makes; a typo of 10**9 steps must not validate
# (field, lowest, highest) of the whole-number sizes; the highest values are far beyond any sensible run.
SIZE_BOUNDS: tuple[tuple[str, int, int], ...] = (
    ("num_generations", 2, 64), ("prompts_per_step", 1, 256), ("max_completion_length", 1, 4096),
    ("lora_rank", 1, 256), ("lora_alpha", 1, 4096), ("checkpoint_every", 1, MAX_STEPS),
    ("seed", 0, 2**63 - 1), ("static_size", 1, 1_000_000), ("eval_n_per_cell", 0, 1000),
    ("eval_max_tokens", 1, 4096), ("dpo_max_pairs", 1, 1_000_000), ("feed_lookahead", 0, 2),
    ("feed_probe", 0, 64), ("warm_start_prompts", 0, 10_000), ("warm_start_repairs", 0, 10_000),
    ("redraw_uniform", 0, 16),
)
DEFAULT_LORA_TARGETS: tuple[str, ...] = (
    "q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj",
)

# Settings only the co-evolving feed reads: a static arm runs the same with any value of them.
COEVOLVE_ONLY_FIELDS = ("feed_lookahead", "feed_probe", "feed_zone_replay", "warm_start_repairs")
# Fields added after runs were recorded, with the value that runs the code as it was before them: a saved
# run's settings lacking one of them ran with this value.
ADDED_FIELDS: dict[str, Any] = {"worked_replay": False, "warm_start_learning_rate": 0.0, "warm_start_twins": 0.0,
                                "feed_probe": 0, "feed_zone_replay": 0.25, "echo_penalty": 0.0,
                                "worked_replay_unsolved_only": False, "redraw_uniform": 0}


def _help(text: str, choices: tuple[str, ...] = ()) -> dict[str, Any]:
    """Field metadata: the help that the CLI flags and the Training tab's form show, and the values a
    form offers for a setting with a fixed set of them."""
    return {"help": text, "choices": choices} if choices else {"help": text}


@dataclass(frozen=True)
class TrainConfig:
    """Every setting of a training run. The defaults are the learning bench's best measured recipe on the seven
    families (docs/training_runs.md, runs 20, 21 and 25): a worked warm start of 384 tasks plus 192 repairs of the
    bank's failures at lr 1e-4, then GRPO with one prompt × 8 completions a step at cosine lr 3e-5, half the
    prompts rephrased and a quarter without the format line."""

    mode: str = field(default="grpo", metadata=_help("grpo: one-turn GRPO; episode: GRPO on the final "
                                                     "attempt of a 5-turn episode; dpo: DPO on banked pairs", MODES))
    feed: str = field(default="coevolve", metadata=_help("coevolve: prompts drawn live from the curriculum, "
                                                         "bank and discrimination zone; static: a uniform fixed "
                                                         "dataset of the same families (the benchmark baseline)", FEEDS))
    feed_lookahead: int = field(default=2, metadata=_help(
        "levels above each family's curriculum level that the co-evolving feed also draws from, each at half the "
        "weight of the level below (0: the curriculum level only; 2: every harder level from the first step)"))
    feed_probe: int = field(default=0, metadata=_help(
        "co-evolving feed: before the first GRPO step (after the warm start) the policy answers this many tasks of "
        "every cell the feed may draw, num_generations times each, so the first steps already go to the cells "
        "with mixed outcomes instead of probing cells one step at a time; generation only; 0 = off (run 29: no lower "
        "share of one-outcome groups over 2 seeds)"))
    feed_zone_replay: float = field(default=0.25, metadata=_help(
        "co-evolving feed: share of prompts replayed from tasks at each family's curriculum level whose last "
        "group's pass rate lies inside the curriculum's discrimination zone (each at most "
        f"{MAX_ZONE_REPLAYS} times)"))
    model: str = field(default="", metadata=_help("base model to train: a Hugging Face id or local path; "
                                                  "empty = the configured MODEL_NAME"))
    steps: int = field(default=40, metadata=_help("optimizer steps of the run"))
    num_generations: int = field(default=8, metadata=_help("completions per prompt (the GRPO group size k)"))
    prompts_per_step: int = field(default=1, metadata=_help("distinct prompts per step; batch = prompts × k"))
    max_completion_length: int = field(default=EVAL_MAX_TOKENS, metadata=_help(
        "tokens generated per completion (the default, as in the evaluation, leaves room for the longest worked "
        "solution)"))
    learning_rate: float = field(default=3e-5, metadata=_help(
        "AdamW learning rate of the LoRA weights in the GRPO (or DPO) steps (3e-5: the steps add to the warm start; "
        "1e-4 lost ground in them, run 25)"))
    beta: float = field(default=0.0, metadata=_help("GRPO KL penalty; 0 skips the reference model"))
    dpo_beta: float = field(default=0.1, metadata=_help("DPO temperature: how far the policy may move from "
                                                        "the reference"))
    temperature: float = field(default=1.0, metadata=_help("sampling temperature of the GRPO groups"))
    lora_rank: int = field(default=16, metadata=_help("LoRA rank r"))
    lora_alpha: int = field(default=32, metadata=_help("LoRA scaling alpha"))
    lora_targets: tuple[str, ...] = field(default=DEFAULT_LORA_TARGETS, metadata=_help("module names that get "
                                                                                      "LoRA adapters"))
    qlora: bool = field(default=True, metadata=_help("on CUDA, load the base model in 4-bit NF4 (QLoRA); "
                                                     "ignored on CPU, which trains fp32 + LoRA"))
    activation_checkpointing: bool = field(default=False, metadata=_help(
        "recompute activations in the backward pass: less memory, ~30% slower steps; only worth it for models "
        "far larger than the embedded one"))
    checkpoint_every: int = field(default=10, metadata=_help("save a resumable checkpoint every N steps"))
    seed: int = field(default=0, metadata=_help("seed of the feed, sampling and LoRA initialisation"))
    families: tuple[str, ...] = field(default=(), metadata=_help("families to train on; empty = the core "
                                                                 "families plus plain_arithmetic"))
    static_size: int = field(default=512, metadata=_help("prompts in the static dataset (feed=static)"))
    eval_n_per_cell: int = field(default=8, metadata=_help("held-out tasks per family × level in the "
                                                           "before/after evaluation; 0 skips it"))
    eval_max_tokens: int = field(default=EVAL_MAX_TOKENS, metadata=_help(
        "tokens per answer in the evaluation (room for the longest worked solution)"))
    dpo_max_pairs: int = field(default=256, metadata=_help("pairs exported from the bank for a DPO run"))
    loss_type: str = field(default="dapo", metadata=_help("TRL's GRPO loss normalisation: " + ", ".join(LOSS_TYPES),
                                                                 LOSS_TYPES))
    epsilon_high: float = field(default=0.0, metadata=_help("upper clip range (DAPO's clip-higher); 0 = same as "
                                                            "the lower one (0.2)"))
    mask_truncated_completions: bool = field(default=False, metadata=_help("leave completions cut off at "
                                                                           "max_completion_length out of the loss"))
    redraw_uniform: int = field(default=0, metadata=_help(
        "GRPO: when every group of a step's batch has one outcome (all completions right or all wrong: no "
        "correctness signal), draw fresh prompts from the same feed and generate again, up to this many times "
        "(DAPO's dynamic sampling); each redraw costs a generation, every drawn batch still counts in the "
        "group metrics; 0 = off"))
    lr_schedule: str = field(default="cosine", metadata=_help("learning-rate schedule: " + ", ".join(LR_SCHEDULES),
                                                                          LR_SCHEDULES))
    warmup_ratio: float = field(default=0.1, metadata=_help("share of the steps spent warming the lr up from 0"))
    consistency_penalty: float = field(default=0.0, metadata=_help(
        "subtracted from the reward when the final answer contradicts the reply's own last computed result "
        "(\"6 + 6 = 12. The answer is 6\")"))
    working_bonus: float = field(default=0.0, metadata=_help(
        "added to the reward when the reply computes with exactly the question's own numbers ('3 + 7 = …' for "
        "'Someone says 12. Add 3 and 7.', not '12 + 7 = 19'), right or wrong: credit for ignoring the distractor "
        "while the answer is still out of reach (arithmetic families); 0 = off"))
    echo_penalty: float = field(default=0.0, metadata=_help(
        "subtracted from the reward when a wrong final answer is another number of the prompt (the distractor, "
        "a claimed result, an operand copied): a group whose answers are all still wrong then prefers the "
        "replies that computed something over the ones that copied; 0 = off"))
    worked_replay: bool = field(default=False, metadata=_help(
        "after each GRPO step, fine-tune on the engine's worked solutions of the step's tasks that had a wrong "
        "completion, in every wording (keeps the warm start's teaching while GRPO explores)"))
    worked_replay_unsolved_only: bool = field(default=False, metadata=_help(
        "with worked_replay: teach only the tasks whose group had no correct completion at all (the groups "
        "GRPO learns nothing from), not every task with a wrong one"))
    no_format_share: float = field(default=0.25, metadata=_help(
        "share of training prompts shown without the 'Answer: <number>' line (varied wordings; evaluation "
        "always keeps it)"))
    rephrase_share: float = field(default=0.5, metadata=_help(
        "share of training prompts asked in other words ('add 3 and 4.', 'how much is 3 plus 4?' for 'what is "
        "3 + 4?'; same numbers and answer; evaluation keeps the default wording)"))
    wording_share: float = field(default=0.0, metadata=_help(
        "share of training prompts worded freely: the question and its distractor sentence composed from many "
        "frames ('Priya says the answer is 12, but that is a mistake. What do 3 and 7 add up to?'); same numbers "
        "and answer; the families that offer it (every built-in deception family and its twin); evaluation keeps "
        "the default wording"))
    warm_start_prompts: int = field(default=384, metadata=_help(
        "warm start: before GRPO, one epoch of fine-tuning on correct answers to this many training prompts "
        "(warm_start_source says whose); 0 = off; GRPO and episode modes (DPO trains on banked pairs and skips it)"))
    warm_start_source: str = field(default="worked", metadata=_help(
        "samples: the policy answers each prompt num_generations times and learns its correct, self-consistent "
        "answers (at most 2 per prompt); worked: the engine's working of each task (one operation a line, then "
        "the answer line), the task asked in every wording its family offers; nothing sampled", WARM_START_SOURCES))
    warm_start_repairs: int = field(default=192, metadata=_help(
        "with a warm start, co-evolving feed: this many more warm-start tasks, fresh variants (same "
        "template, new numbers) of the failure bank's unrepaired failures in the run's families, each failure in "
        "turn, each taught as its failure was asked (the family's wording with the format line): the warm start "
        "repairs what the hunts found; an empty bank adds none (the static feed never reads the bank)"))
    warm_start_twins: float = field(default=0.0, metadata=_help(
        "worked warm start: share of its deceptive tasks whose control twin (the same numbers with the deception "
        "taken out: 'Which is the smaller: 19 or 78?' for 'Which is NOT the larger: 19 or 78?') is taught right "
        "after them, in one wording: the pair differs only in the negation, so copying the other value does not "
        "pay; 0 = off"))
    warm_start_learning_rate: float = field(default=1e-4, metadata=_help(
        "learning rate of the warm start's fine-tuning (and of worked_replay); 0 = learning_rate, so GRPO can "
        "move more gently than the warm start"))
    report_to: tuple[str, ...] = field(default=(), metadata=_help(
        "trackers the trainer also logs to (" + ", ".join(REPORTERS) + "); the run's metrics always go to SQLite"))
    use_vllm: bool = field(default=False, metadata=_help("generate the GRPO groups with vLLM (CUDA + `pip install "
                                                         "vllm`); see docs/scaling.md"))
    vllm_mode: str = field(default="colocate", metadata=_help("colocate: vLLM shares the training GPUs; server: a "
                                                              "separate `trl vllm-serve` process", VLLM_MODES))

    def validate(self) -> "TrainConfig":
        _check(self.mode in MODES, f"mode must be one of {', '.join(MODES)}, not {_brief(self.mode)}")
        _check(self.feed in FEEDS, f"feed must be one of {', '.join(FEEDS)}, not {_brief(self.feed)}")
        _check(not (self.mode == "episode" and self.feed == "static"),
               "episode mode plays live episodes with the policy; use feed=coevolve (static is for grpo)")
        _check(self.steps >= 1, f"steps must be at least 1, not {self.steps}")
        _check(self.steps <= MAX_STEPS, f"steps must be at most {MAX_STEPS}, not {self.steps}")
        _check(self.loss_type in LOSS_TYPES, f"loss_type must be one of {', '.join(LOSS_TYPES)}, not {_brief(self.loss_type)}")
        _check(self.lr_schedule in LR_SCHEDULES,
               f"lr_schedule must be one of {', '.join(LR_SCHEDULES)}, not {_brief(self.lr_schedule)}")
        _check(self.epsilon_high == 0 or 0.2 <= self.epsilon_high < 1,
               f"epsilon_high must be 0 (off) or in [0.2, 1), not {self.epsilon_high}")
        for name in ("warmup_ratio", "no_format_share", "rephrase_share", "wording_share", "warm_start_twins",
                     "feed_zone_replay"):
            _check(0 <= getattr(self, name) <= 1, f"{name} must be between 0 and 1, not {getattr(self, name)}")
        for name in ("consistency_penalty", "working_bonus", "echo_penalty"):
            _check(0 <= getattr(self, name) <= 1, f"{name} must be between 0 and 1, not {getattr(self, name)}")
        _check(self.num_generations >= 2, "num_generations must be at least 2: GRPO compares completions "
                                          f"within a group (got {self.num_generations})")
        for name, low, high in SIZE_BOUNDS:  # a typo of 10**9 must fail here, not as an out-of-memory crash
            value = getattr(self, name)
            _check(low <= value <= high, f"{name} must be between {low:,} and {high:,}, not {value:,}")
        _check(1e-8 <= self.learning_rate < 1, f"learning_rate must be in [1e-8, 1), not {self.learning_rate}")
        _check(self.warm_start_learning_rate == 0 or 1e-8 <= self.warm_start_learning_rate < 1,
               f"warm_start_learning_rate must be 0 (= learning_rate) or in [1e-8, 1), not {self.warm_start_learning_rate}")
        _check(self.beta >= 0, f"beta must be 0 or more, not {self.beta}")
        _check(self.beta <= 10, f"beta must be between 0 and 10, not {self.beta}")
        _check(self.dpo_beta > 0, f"dpo_beta must be positive, not {self.dpo_beta}")
        _check(self.temperature > 0, f"temperature must be positive, not {self.temperature}")
        _check(0.01 <= self.temperature <= 5, f"temperature must be between 0.01 and 5, not {self.temperature}")
        _check(bool(self.lora_targets), "lora_targets must name at least one module (e.g. q_proj)")
        _check(set(self.report_to) <= set(REPORTERS),
               f"report_to takes {', '.join(REPORTERS)}, not {', '.join(sorted(set(self.report_to) - set(REPORTERS)))}")
        _check(self.warm_start_source in WARM_START_SOURCES, "warm_start_source must be one of "
               f"{', '.join(WARM_START_SOURCES)}, not {_brief(self.warm_start_source)}")
        _check(not self.worked_replay_unsolved_only or self.worked_replay,
               "worked_replay_unsolved_only narrows worked_replay's tasks: set worked_replay too, or leave it off")
        _check(not self.warm_start_twins or (self.warm_start_source == "worked" and self.warm_start_prompts > 0),
               "warm_start_twins adds control twins to the worked warm start: it needs warm_start_source=worked "
               "and warm_start_prompts above 0, or set it to 0")
        _check(self.vllm_mode in VLLM_MODES, f"vllm_mode must be one of {', '.join(VLLM_MODES)}, not {_brief(self.vllm_mode)}")
        self._check_families()
        return self

    def _check_families(self) -> None:
        from alice_app.tasks.registry import get_family

        for name in self.families:
            get_family(name)  # raises ValueError naming the known families
        twice = sorted(name for name, count in Counter(self.families).items() if count > 1)
        _check(not twice, f"families lists {', '.join(twice)} more than once")

    @property
    def batch_size(self) -> int:
        return self.prompts_per_step * self.num_generations

    @property
    def fine_tune_learning_rate(self) -> float:
        """The warm start's (and worked replay's) learning rate: ``warm_start_learning_rate``, or else GRPO's."""
        return self.warm_start_learning_rate or self.learning_rate

    @property
    def warm_start_repair_count(self) -> int:
        """The bank's failures the warm start may teach: the co-evolving feed's, and only with a warm start."""
        return self.warm_start_repairs if self.feed == "coevolve" and self.warm_start_prompts else 0

    def training_families(self) -> list[str]:
        from alice_app.tasks import default_families

        return list(self.families) if self.families else default_families()

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["lora_targets"] = list(self.lora_targets)
        data["families"] = list(self.families)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "TrainConfig":
        return settings_from_dict(cls, data, "training")

    def to_grpo_config(self, output_dir: str) -> Any:
        from trl import GRPOConfig

        return GRPOConfig(
            output_dir=str(output_dir), max_steps=self.steps, per_device_train_batch_size=self.batch_size,
            num_generations=self.num_generations, max_completion_length=self.max_completion_length,
            temperature=self.temperature, beta=self.beta, loss_type=self.loss_type,
            epsilon_high=self.epsilon_high or None, mask_truncated_completions=self.mask_truncated_completions,
            use_vllm=self.use_vllm, vllm_mode=self.vllm_mode,
            **self._common_trainer_args(),
            # The live feed decides what comes next; TRL's buffered shuffle would read ahead 1000 prompts.
            shuffle_dataset=False,
        )

    def to_dpo_config(self, output_dir: str) -> Any:
        from trl import DPOConfig

        return DPOConfig(
            output_dir=str(output_dir), max_steps=self.steps, per_device_train_batch_size=self.prompts_per_step,
            max_length=self.max_completion_length + 256, beta=self.dpo_beta, **self._common_trainer_args(),
        )

    def _common_trainer_args(self) -> dict[str, Any]:
        cuda = _cuda_available()
        return dict(
            learning_rate=self.learning_rate, seed=self.seed, logging_steps=1,
            save_strategy="steps", save_steps=self.checkpoint_every, report_to=list(self.report_to), disable_tqdm=True,
            lr_scheduler_type=self._scheduler(), warmup_steps=round(self.warmup_ratio * self.steps), use_cpu=not cuda, bf16=cuda, dataloader_num_workers=0,
            activation_checkpointing=self.activation_checkpointing,
        )

    def _scheduler(self) -> str:
        if self.lr_schedule == "constant":
            return "constant_with_warmup" if self.warmup_ratio else "constant"
        return self.lr_schedule

    def lora_config(self) -> Any:
        from peft import LoraConfig

        return LoraConfig(r=self.lora_rank, lora_alpha=self.lora_alpha, lora_dropout=0.0,
                          target_modules=list(self.lora_targets), task_type="CAUSAL_LM")

    def use_4bit(self) -> bool:
        """QLoRA only where bitsandbytes can run: a CUDA device."""
        return self.qlora and _cuda_available()


def _cuda_available() -> bool:
    import torch

    return torch.cuda.is_available()


_KINDS = {int: "an integer", float: "a number", bool: "true or false", str: "a string", tuple: "a list of names"}


def settings_from_dict(cls: type, data: Mapping[str, Any], kind: str) -> Any:
    """A validated ``cls`` (a settings dataclass with defaults everywhere and a ``validate`` method) from
    plain values, e.g. a YAML recipe or CLI flags: unknown names and values of the wrong type are refused
    with a message naming them, before anything is built."""
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(data) - known)
    _check(not unknown, f"unknown {kind} settings: {', '.join(map(str, unknown))[:200]}")
    defaults = cls()
    for name, value in data.items():
        _check_type(name, value, getattr(defaults, name))
    values = {name: tuple(value) if isinstance(value, list) else value for name, value in data.items()}
    return cls(**values).validate()


def _check_type(name: str, value: Any, default: Any) -> None:
    """A value of the default's type: an int will do for a float, a list of strings for a tuple,
    and a bool is never a number here."""
    expected = type(default)
    if expected is tuple:
        ok = isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)
    else:
        accepted = (int, float) if expected is float else expected
        ok = isinstance(value, accepted) and (expected is bool or not isinstance(value, bool))
    _check(ok, f"{name} must be {_KINDS.get(expected, expected.__name__)}, not {_brief(value)}")


def _brief(value: Any) -> str:
    """``repr(value)``, cut to 80 characters: a pasted megabyte must not come back in the message."""
    shown = repr(value)
    return shown if len(shown) <= 80 else shown[:79] + "…"


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(message)
