"""Co-evolution: alternate a challenger GRPO phase and a solver GRPO phase, each on its own LoRA adapter.

Challenger phase: the challenger writes proposals (TRL samples ``num_generations`` per prompt);
each batch is judged (validity, novelty, the solver's pass rate over ``fills`` × ``k`` samples) and
the challenger's reward peaks at p = 0.5 (``difficulty.challenger_reward``). Accepted templates go
to the store. Solver phase: GRPO with the engine's own reward on tasks filled from the accepted
templates whose measured pass rate lies in the discrimination zone (topped up with the built-in
template tasks, and only those when no challenger task qualifies; the reason is recorded). Both
adapters and every round's figures are stored (``TemplateStore.add_round``, the runs table).
"""
from __future__ import annotations

import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from random import Random
from typing import Any, Callable, Mapping

from alice_app.challenger.family import fill, known_wordings
from alice_app.challenger.judge import judge_batch, persist, summarize
from alice_app.challenger.policy import challenger_name, challenger_prompts, prefilled_prompt
from alice_app.config import TRAIN_SEED_LIMIT
from alice_app.curriculum import in_zone
from alice_app.types import check_seed


@dataclass(frozen=True)
class CoevolveConfig:
    rounds: int = field(default=1, metadata={"help": "challenger phase + solver phase pairs"})
    challenger_steps: int = field(default=2, metadata={"help": "GRPO steps of the challenger per round"})
    solver_steps: int = field(default=2, metadata={"help": "GRPO steps of the solver per round"})
    prompts_per_step: int = field(default=1, metadata={"help": "distinct prompts per GRPO step (both roles)"})
    num_generations: int = field(default=4, metadata={"help": "GRPO group size (both roles)"})
    fills: int = field(default=2, metadata={"help": "tasks filled per proposal to measure its pass rate"})
    k: int = field(default=4, metadata={"help": "solver samples per filled task (tier 3)"})
    challenger_tokens: int = field(default=80, metadata={"help": "tokens per proposal"})
    solver_tokens: int = field(default=48, metadata={"help": "tokens per solver answer"})
    learning_rate: float = field(default=1e-4, metadata={"help": "LoRA learning rate (both roles)"})
    challenger_temperature: float = field(default=0.7, metadata={"help": "sampling temperature of proposals"})
    template_share: float = field(default=0.5, metadata={"help": "share of solver prompts from the built-in "
                                                                 "template families"})
    challenger_warm_start: int = field(default=0, metadata={"help": "before round 1, fine-tune the challenger on this "
                                                                    "many well-formed composed proposals (0: none)"})
    seed: int = field(default=0, metadata={"help": "seeds prompts, fills, sampling and LoRA init"})

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "CoevolveConfig":
        """From plain values (CLI flags, the Training tab's form); unknown names and wrong types are refused."""
        from alice_app.training.config import settings_from_dict

        return settings_from_dict(cls, data, "co-evolution")

    def validate(self) -> "CoevolveConfig":
        check_seed(self.seed)
        for name in ("rounds", "challenger_steps", "solver_steps", "prompts_per_step", "fills", "k"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, not {getattr(self, name)}")
        if not 0 <= self.challenger_warm_start <= 1000:
            raise ValueError(f"challenger_warm_start must lie in 0..1000, not {self.challenger_warm_start}")
        if self.num_generations < 2:
            raise ValueError(f"num_generations must be at least 2 (GRPO compares a group), not {self.num_generations}")
        if not 0.0 <= self.template_share <= 1.0:
            raise ValueError(f"template_share must lie in 0..1, not {self.template_share}")
        return self

    def train_config(self, role: str) -> Any:
        from alice_app.training.config import TrainConfig

        steps = self.challenger_steps if role == "challenger" else self.solver_steps
        tokens = self.challenger_tokens if role == "challenger" else self.solver_tokens
        return TrainConfig.from_dict({
            "steps": steps, "num_generations": self.num_generations, "prompts_per_step": self.prompts_per_step,
            "max_completion_length": tokens, "learning_rate": self.learning_rate, "seed": self.seed,
            "eval_n_per_cell": 0, "checkpoint_every": steps + 1, "warm_start_prompts": 0,
            "lr_schedule": "constant", "warmup_ratio": 0.0,  # a phase of a few steps: no schedule
            "temperature": self.challenger_temperature if role == "challenger" else 1.0})


@dataclass
class Role:
    """One side's model while the run lasts: the base model becomes a PeftModel after its first phase."""

    name: str
    model: Any
    tokenizer: Any
    trained: bool = False

    def policy(self) -> Any:
        from alice_app.models.local import LocalPolicy

        return LocalPolicy(self.model, self.tokenizer, model_id=self.name, batch_size=16)


def run_coevolve(services, config: CoevolveConfig, output_dir: Path,
                 on_round: Callable[[dict], None] | None = None, *, run_id: int | None = None,
                 stop_requested: threading.Event | None = None,
                 on_phase: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run ``config.rounds`` rounds; returns {"run_id", "status", "rounds": [figures, ...]}.

    Without ``run_id`` the run gets its own row in the runs table and its final status (the CLI);
    with one (the Training tab's background job) the caller owns the status. ``stop_requested``
    is checked between rounds: a stopped run keeps the rounds it finished."""
    from alice_app.training.runner import load_training_model

    config.validate()
    own_row = run_id is None
    if own_row:
        run_id = services.runs.create("coevolve", asdict(config))
        services.runs.set_status(run_id, "running")
    status = "completed"
    services.runs.set_progress(run_id, 0, config.rounds)
    try:
        if on_phase is not None:
            on_phase("loading")
        solver_cfg = config.train_config("solver")
        solver = Role(services.settings.model_name, *load_training_model(services.settings, solver_cfg))
        challenger = _challenger_role(services, solver_cfg)
        taught: list[str] = []
        if challenger is not None and config.challenger_warm_start:
            if on_phase is not None:
                on_phase("challenger warm start")
            taught = warm_start_challenger(services, config, run_id, challenger)
        figures = []
        for round_no in range(1, config.rounds + 1):
            if stop_requested is not None and stop_requested.is_set():
                status = "stopped"
                break
            if on_phase is not None:
                on_phase(f"round {round_no} of {config.rounds}")
            folder = Path(output_dir) / f"round-{round_no}"
            result = run_round(services, config, run_id, round_no, challenger, solver, folder, taught)
            figures.append(result)
            services.runs.add_metrics(run_id, round_no, _flat_metrics(result))
            services.runs.set_progress(run_id, round_no, config.rounds)
            services.runs.set_checkpoint(run_id, str(folder))
            if on_round is not None:
                on_round(result)
        if own_row:
            services.runs.set_status(run_id, status)
    except BaseException as exc:
        if own_row:
            services.runs.set_status(run_id, "failed", error=str(exc)[:500])
        raise
    return {"run_id": run_id, "status": status, "rounds": figures}


def coevolve_runner(services, request) -> str:
    """The training job's runner for a co-evolution run (``request.config`` is a CoevolveConfig)."""
    return run_coevolve(services, request.config, request.output_dir, run_id=request.run_id,
                        stop_requested=request.stop_requested, on_phase=request.on_phase)["status"]


def _challenger_role(services, train_config) -> Role | None:
    """The challenger's own copy of its model (None for an endpoint, which proposes but is not trained)."""
    settings = services.settings
    if settings.api_base_url:
        return None
    from alice_app.training.runner import load_training_model

    local = settings.with_overrides(model_name=challenger_name(settings))
    return Role(f"challenger:{local.model_name}", *load_training_model(local, train_config))


def warm_start_challenger(services, config: CoevolveConfig, run_id: int, challenger: Role) -> list[str]:
    """Fine-tune the challenger on composed proposals (``challenger.warm_start``); the wordings it was taught,
    which novelty is then measured against too."""
    from alice_app.challenger.warm_start import composed_proposals, run_challenger_warm_start

    train_config = config.train_config("challenger")
    proposals = composed_proposals(config.challenger_warm_start, config.seed)
    challenger.model, report = run_challenger_warm_start(
        challenger.model, challenger.tokenizer, train_config.lora_config(), proposals, config.seed,
        known_wordings(services.templates), config.learning_rate)
    challenger.trained = True
    services.runs.add_metrics(run_id, 0, {f"challenger_{k}": v for k, v in report.as_metrics().items()})
    return [proposal.template for proposal in proposals]


def run_round(services, config: CoevolveConfig, run_id: int, round_no: int, challenger: Role | None,
              solver: Role, folder: Path, taught: list[str] = ()) -> dict[str, Any]:
    started = time.perf_counter()
    judged: list = []
    challenger_adapter = None
    if challenger is not None:
        challenger_adapter = challenger_phase(services, config, run_id, round_no, challenger, solver, folder, judged,
                                              taught)
    challenger_seconds = time.perf_counter() - started
    tasks, note = solver_tasks(services, config, judged, round_no)
    solver_stats: dict[str, Any] = {}
    solver_adapter = solver_phase(services, config, solver, tasks, folder, solver_stats)
    figures = {"round": round_no, "challenger": summarize(judged), "challenger_seconds": round(challenger_seconds, 1),
               "solver_seconds": round(time.perf_counter() - started - challenger_seconds, 1),
               "challenger_tasks": sum(t.family == "challenger" for t in tasks), "solver_prompts": len(tasks),
               "solver_note": note, **solver_stats,
               "challenger_trained": challenger is not None}
    services.templates.add_round(run_id, round_no, figures, challenger_adapter, solver_adapter)
    return figures


def challenger_phase(services, config, run_id, round_no, challenger: Role, solver: Role, folder: Path,
                     judged: list, taught: list[str] = ()) -> str:
    """GRPO on the challenger; every judged batch is persisted and appended to ``judged``. Novelty is measured
    against the known wordings and the ones its warm start ``taught``."""
    from datasets import Dataset

    from alice_app.training.rewards import completion_text

    train_config = config.train_config("challenger")
    count = config.challenger_steps * config.prompts_per_step
    pairs = challenger_prompts(count, config.seed * 1000 + round_no, known_wordings(services.templates))
    rows = [{"prompt": prefilled_prompt(challenger.tokenizer, chat), "op": op} for op, chat in pairs]
    solver_policy = solver.policy()
    batches = [0]

    def challenger_reward(completions, op=None, **_columns) -> list[float]:
        texts = [completion_text(c) for c in completions]
        batches[0] += 1
        judgements = judge_batch(texts, known_wordings(services.templates, taught), solver=solver_policy,
                                 verifier=services.verifier, fills=config.fills, k=config.k,
                                 seed=config.seed * 100_000 + round_no * 1000 + batches[0], ops=op)
        persist(judgements, services.templates, proposer=challenger.name, solver_id=solver.name,
                round=round_no, run_id=run_id)
        judged.extend(judgements)
        return [j.reward for j in judgements]

    return _train(challenger, train_config, challenger_reward, Dataset.from_list(rows), folder / "challenger")


def solver_tasks(services, config: CoevolveConfig, judged: list, round_no: int) -> tuple[list, str]:
    """The solver's prompts: fresh fills of in-zone challenger templates, topped up with template tasks."""
    from alice_app.training.feed import static_items

    zone = services.curriculum.load_config().zone
    count = config.solver_steps * config.prompts_per_step
    rng = Random(config.seed * 7919 + round_no)
    in_zone_templates = {j.proposal.template_id: j.proposal for j in judged
                         if j.valid and j.difficulty and j.difficulty.n and in_zone(j.difficulty.pass_rate, zone)}
    for row in services.templates.accepted():
        if row["pass_rate"] is not None and in_zone(row["pass_rate"], zone):
            from alice_app.challenger.proposal import Proposal

            in_zone_templates.setdefault(row["template_id"], Proposal(row["template"], row["op"]))
    templates = sorted(in_zone_templates.values(), key=lambda p: p.template_id)
    wanted = 0 if not templates else max(1, round(count * (1 - config.template_share)))
    challenger_part = [fill(rng.choice(templates), rng.randrange(TRAIN_SEED_LIMIT)) for _ in range(wanted)]
    note = (f"{len(templates)} challenger template(s) in the zone {zone}" if templates else
            f"no accepted challenger template has a pass rate in the zone {zone}: the solver trains on the "
            f"template tasks only")
    from alice_app.training.config import TrainConfig

    families = TrainConfig().training_families()
    filler = [item.task for item in static_items(families, count - wanted, config.seed * 31 + round_no)]
    tasks = challenger_part + filler
    rng.shuffle(tasks)
    return tasks, note


def solver_phase(services, config: CoevolveConfig, solver: Role, tasks: list, folder: Path, stats: dict) -> str:
    """GRPO on the solver with the engine's reward; the groups' pass rates and tier-3 consistency of
    challenger tasks go back to their templates' history."""
    from datasets import Dataset

    from alice_app.training.prompts import task_messages
    from alice_app.training.rewards import make_reward_function
    from alice_app.verify.tier3 import consistency

    seen: list[float] = []

    def observe(groups) -> None:
        for group in groups:
            seen.append(group.pass_rate)
            if group.task.family == "challenger":
                agreement = consistency(group.task, group.responses)
                services.templates.record_pass_rate(group.task.metadata["template_id"], group.passes,
                                                    len(group.verdicts), solver.name, agreement.confidence)

    import json

    rows = [{"prompt": task_messages(t), "task": json.dumps(t.to_dict()), "source": "challenger"
             if t.family == "challenger" else "static", "failure_id": -1} for t in tasks]
    adapter = _train(solver, config.train_config("solver"), make_reward_function(services.verifier, observe),
                     Dataset.from_list(rows), folder / "solver")
    stats["solver_train_pass_rate"] = round(sum(seen) / len(seen), 4) if seen else None
    return adapter


def _train(role: Role, train_config, reward, dataset, folder: Path) -> str:
    from transformers.trainer_callback import PrinterCallback
    from trl import GRPOTrainer

    trainer = GRPOTrainer(model=role.model, reward_funcs=reward, args=train_config.to_grpo_config(str(folder / "trl")),
                          train_dataset=dataset, processing_class=role.tokenizer,
                          peft_config=None if role.trained else train_config.lora_config())
    trainer.remove_callback(PrinterCallback)
    trainer.train()
    role.model, role.trained = trainer.model, True
    trainer.save_model(str(folder / "adapter"))
    return str(folder / "adapter")


def _flat_metrics(figures: dict) -> dict[str, float]:
    challenger = figures["challenger"]
    flat = {key: challenger[key] for key in ("validity_rate", "novelty_rate", "zone_rate", "mean_reward")}
    if figures.get("solver_train_pass_rate") is not None:
        flat["solver_train_pass_rate"] = figures["solver_train_pass_rate"]
    return flat
