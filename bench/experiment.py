"""Controlled training experiments (used by bench/learning.py only): one arm of the learning
comparison, and the step-time comparison of ALICE's trainer with a bare TRL GRPO loop on the same prompts.

Each experiment gets a fresh temporary database and a fresh LoRA adapter on the embedded model
(the converted checkpoint itself is shared through the default models folder).
"""
from __future__ import annotations

import os
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from alice_app.config import HELD_OUT_SEED_START, Settings
from alice_app.training.callbacks import as_trainer_callback, run_recorder
from alice_app.training.config import TrainConfig
from alice_app.training.evaluate import eval_policy
from alice_app.evaluation import evaluate_report
from alice_app.training.feed import CoevolvingFeed, static_items
from alice_app.tasks.wordings import worded_families
from alice_app.training.rewards import make_reward_function
from alice_app.training.runner import RunRequest, build_trainer, load_training_model
from bench.learning_report import banking_hunt


HUNT_SLOTS = 32  # episodes played side by side (one generate call per turn): 32 is ~17 % faster than 8 on CPU
PARAPHRASE_EXTRA_TOKENS = 32  # the paraphrases' wordings invite longer replies than the held-out tasks'


def experiment_services(folder: Path) -> Any:
    """Services on a fresh database in ``folder``, reusing the shared embedded checkpoint."""
    from alice_app.models.loader import ensure_embedded_checkpoint
    from alice_app.services import Services

    shared = Settings.from_env()
    ensure_embedded_checkpoint(shared.models_dir)
    (folder / "data").mkdir(parents=True, exist_ok=True)
    os.symlink(Path(shared.models_dir).resolve(), folder / "data" / "models")
    return Services.from_settings(Settings(data_dir=folder / "data", db_path=folder / "data" / "alice.db"))


class CurveRecorder:
    """Evaluates the model on held-out seeds every ``every`` steps (training time excludes it)."""

    def __init__(self, tokenizer: Any, settings: Any, config: TrainConfig, families: list[str], every: int,
                 n_per_cell: int):
        self.tokenizer, self.settings, self.config, self.families = tokenizer, settings, config, families
        self.every, self.n_per_cell = every, n_per_cell
        self.points: list[dict[str, Any]] = []
        self.seconds = 0.0  # spent evaluating, to be taken out of the training time

    def on_step_end(self, args, state, control, model=None, **kwargs):
        step = state.global_step
        if step % self.every == 0 and step < state.max_steps:
            started = time.perf_counter()
            with eval_policy(model, self.tokenizer, self.settings) as policy:
                report = evaluate_report(policy, self.families, self.n_per_cell,
                                         max_tokens=self.config.eval_max_tokens)
            self.points.append({"step": step, "table": report["accuracy"], "penalty": report["penalty"]})
            self.seconds += time.perf_counter() - started


class WarmStartProbe:
    """Measures the model once the warm start has run, before GRPO's first step (the held-out report at
    ``n_per_cell`` and the paraphrase set): what the warm start alone did. With ``hunt`` ((episodes, seed)), it
    also plays that hunt, which banks this model's failures, and scores fresh variants of them. Added
    after the trainer's own callbacks, so its ``on_train_begin`` runs after the warm start's; the time is taken out
    of training."""

    def __init__(self, tokenizer: Any, settings: Any, config: TrainConfig, families: list[str], n_per_cell: int,
                 paraphrases: int | None = None, services: Any = None, hunt: tuple[int, int] | None = None):
        self.tokenizer, self.settings, self.config, self.families = tokenizer, settings, config, families
        self.n_per_cell, self.paraphrases, self.services, self.hunt = n_per_cell, paraphrases, services, hunt
        self.point: dict[str, Any] | None = None
        self.seconds = 0.0

    def on_train_begin(self, args, state, control, model=None, **kwargs):
        started = time.perf_counter()
        with eval_policy(model, self.tokenizer, self.settings, batch_size=HUNT_SLOTS) as policy:
            report, said = held_out_and_paraphrases(policy, self.families, self.n_per_cell, self.config.eval_max_tokens,
                                                    self.paraphrases)
            hunt = (play_hunt(policy, self.services, self.families, *self.hunt, self.config.eval_max_tokens)
                    if self.hunt else None)
        self.point = {"accuracy": report["accuracy"], "control": report["control"], "penalty": report["penalty"],
                      "paraphrases": said}
        if hunt:
            self.point.update(hunt=hunt, variants=score_variants(model, self.tokenizer, self.services, self.config,
                                                                 variant_groups(hunt["episodes"])))
        self.seconds = time.perf_counter() - started
        _log(f"{self.config.feed}: after the warm start, measured in {self.seconds:.0f} s")


def arm_config(feed: str, steps: int, seed: int, eval_n_per_cell: int,
               overrides: dict[str, Any] | None = None) -> TrainConfig:
    """The settings of one arm: ``overrides`` (shared by both arms) on top of TrainConfig's defaults."""
    return TrainConfig.from_dict({**(overrides or {}), "feed": feed, "steps": steps, "seed": seed,
                                  "eval_n_per_cell": eval_n_per_cell, "checkpoint_every": steps + 1})


def run_arm(feed: str, steps: int, seed: int, eval_n_per_cell: int, curve_n_per_cell: int,
            eval_every: int, overrides: dict[str, Any] | None = None, hunt_episodes: int = 200,
            paraphrases: int | None = None, bank_after_warm_start: bool = False) -> dict[str, Any]:
    """Train one arm (feed = "coevolve" or "static") and return its measurements.

    Before training: a hunt of ``hunt_episodes`` 5-turn episodes banks the model's failures, then
    the held-out report (accuracy, control twins, penalty, shortcuts) and the paraphrase set. After:
    the same report and paraphrases, and the same hunt replayed (same seed, so the same tasks),
    which gives the banked tasks' greedy first attempts and the turn-1 / by-turn-5 solve rates.
    Before and after, fresh variants of every task the first hunt failed (same template, held-out
    seeds) measure whether a failure is repaired beyond its exact wording, in both arms alike. Last, the
    product's recheck (``recheck_banked``) plays the first hunt's banked rows as repairs, which marks
    in the bank those the trained model now solves on 3 fresh variants.

    ``bank_after_warm_start``: the same hunt is played again after the warm start, before GRPO's first step,
    and the repair figures (exact tasks, fresh variants, recheck) count its failures instead: what the steps
    repair of the failures of a model that already solves much (the first hunt's still bank the base model's
    failures, which the co-evolving warm start's repairs draw on).
    """
    with tempfile.TemporaryDirectory(prefix=f"alice-{feed}-") as tmp:
        services = experiment_services(Path(tmp))
        config = arm_config(feed, steps, seed, eval_n_per_cell, overrides)
        check_banking(config, bank_after_warm_start)
        model, tokenizer = load_training_model(services.settings, config)
        families = config.training_families()
        probe = lambda m: measure(m, tokenizer, services, config, families, hunt_episodes, seed,  # noqa: E731
                                  paraphrases)
        before = probe(model)
        if not bank_after_warm_start:
            variants = variant_groups(before["hunt"]["episodes"])
            before["variants"] = score_variants(model, tokenizer, services, config, variants)
            _log(f"{config.feed}: {sum(map(len, variants))} fresh variants of the failed tasks scored")
        run_id = services.runs.create(config.mode, config.to_dict())
        trainer = build_trainer(services, RunRequest(run_id, config, Path(tmp) / "run"), model, tokenizer, families)
        curve = CurveRecorder(tokenizer, services.settings, config, families, eval_every, curve_n_per_cell)
        trainer.add_callback(as_trainer_callback(curve))
        probe_warm = WarmStartProbe(tokenizer, services.settings, config, families, eval_n_per_cell, paraphrases,
                                    services, (hunt_episodes, seed) if bank_after_warm_start else None)
        if measures_warm_start(config):
            trainer.add_callback(as_trainer_callback(probe_warm))
        started = time.perf_counter()
        trainer.train()
        train_seconds = time.perf_counter() - started - curve.seconds - probe_warm.seconds
        banking = banking_hunt({"before": before, "warm_start": probe_warm.point,
                                "banked_after_warm_start": bank_after_warm_start})
        variants = variant_groups(banking["episodes"])  # the same groups as before: their seeds are fixed
        after = probe(trainer.model)
        after["variants"] = score_variants(trainer.model, tokenizer, services, config, variants)
        _log(f"{config.feed}: the fresh variants scored again")
        levels = {f: s.pinned or s.level for f, s in services.curriculum.load(families).items()}
        banked_ids = [r["failure_id"] for r in banking["episodes"] if r["failure_id"] is not None]
        recheck = recheck_banked(trainer.model, tokenizer, services, config, banked_ids, seed)
        _log(f"{config.feed}: recheck of {recheck['rows']} banked rows, {recheck['episodes']} first attempts")
        result = {"feed": feed, "config": config.to_dict(), "before": before, "after": after,
                  "curve": curve.points, "warm_start": probe_warm.point,
                  "metrics": services.runs.metrics(run_id), "train_seconds": train_seconds,
                  "curve_eval_seconds": curve.seconds, "final_levels": levels,
                  "bank_rows_at_end": services.bank.query(page_size=1).total,  # every hunt's and the feed's
                  "banked_after_warm_start": bank_after_warm_start,
                  "repair": repair_loop(banking, after["hunt"], recheck.pop("repaired")),
                  "recheck": recheck}
        services.close()
    return result


def measures_warm_start(config: TrainConfig) -> bool:
    """Whether an arm has a warm start for ``WarmStartProbe`` to measure after (GRPO mode with warm_start_prompts)."""
    return bool(config.warm_start_prompts) and config.mode == "grpo"


def check_banking(config: TrainConfig, bank_after_warm_start: bool) -> None:
    """ValueError when the repair figures should count a hunt after the warm start and the arm has none."""
    if bank_after_warm_start and not measures_warm_start(config):
        raise ValueError("--bank-after-warm-start hunts after the warm start: it needs GRPO mode and "
                         f"warm_start_prompts above 0 (this arm: mode {config.mode}, "
                         f"warm_start_prompts {config.warm_start_prompts})")


def measure(model: Any, tokenizer: Any, services: Any, config: TrainConfig, families: list[str],
            hunt_episodes: int, seed: int, paraphrases: int | None = None) -> dict[str, Any]:
    """The held-out report, the same held-out tasks in free wordings (the families that offer them), the
    paraphrase set (``paraphrases`` prompts spread over it; None = all) and a hunt, all greedy, with the
    current weights."""
    with eval_policy(model, tokenizer, services.settings, batch_size=HUNT_SLOTS) as policy:
        started = time.perf_counter()
        report, paraphrase_score = held_out_and_paraphrases(policy, families, config.eval_n_per_cell,
                                                            config.eval_max_tokens, paraphrases)
        _log(f"{config.feed}: held-out report and paraphrases in {time.perf_counter() - started:.0f} s")
        worded = [family for family in families if family in worded_families()]
        free = evaluate_report(policy, worded, config.eval_n_per_cell, max_tokens=config.eval_max_tokens,
                               wording="free") if worded else None
        _log(f"{config.feed}: free wordings in {time.perf_counter() - started:.0f} s")
        hunt = play_hunt(policy, services, families, hunt_episodes, seed, config.eval_max_tokens)
        _log(f"{config.feed}: {hunt_episodes} hunt episodes in {time.perf_counter() - started:.0f} s")
    return {**report, "paraphrases": paraphrase_score, "hunt": hunt, "free_wording": free}


def play_hunt(policy: Any, services: Any, families: list[str], episodes: int, seed: int, max_tokens: int) -> dict:
    """The bench's hunt (``hunt_starts``: the same tasks for a seed) played with ``policy``: each episode's task,
    first attempt, outcome, turns and banked row, and the solve rates."""
    played = play_fixed(policy, services, hunt_starts(families, episodes, seed), max_tokens)
    rows = [{"task_id": r.task.id, "first": r.first_attempt_correct, "solved": r.solved, "turns": r.turns,
             "failure_id": r.failure_id} for r in played]
    return {"episodes": rows, **solve_rates(rows)}


VARIANTS_PER_FAILURE = 3  # as many solved variants as the bank asks before it marks a failure repaired
VARIANT_SEED_START = HELD_OUT_SEED_START + 500_000_000  # held out, and apart from the evaluation's seeds


def variant_groups(episodes: list[dict], per_failure: int = VARIANTS_PER_FAILURE) -> list[list[Any]]:
    """For each hunt task failed at turn 1: ``per_failure`` fresh variants of its template on held-out seeds."""
    from alice_app.tasks import generate_task
    from alice_app.tasks.repair import same_template_variant

    failed = [e["task_id"] for e in episodes if not e["first"]]
    groups = []
    for index, task_id in enumerate(failed):
        family, level, seed = task_id.rsplit("/", 2)
        task = generate_task(family, level, int(seed))
        groups.append([same_template_variant(task, VARIANT_SEED_START + index * per_failure + j)
                       for j in range(per_failure)])
    return groups


def score_variants(model: Any, tokenizer: Any, services: Any, config: TrainConfig, groups: list[list[Any]]) -> dict:
    """Greedy first attempts at every variant: the share of failures whose variants are all solved
    (repaired beyond the exact task) and the share of variants solved."""
    from alice_app.training.prompts import task_messages

    flat = [task for group in groups for task in group]
    if not flat:
        return {"failures": 0, "all_solved": None, "variants_solved": None}
    with eval_policy(model, tokenizer, services.settings, batch_size=HUNT_SLOTS) as policy:
        replies = policy.generate([task_messages(t) for t in flat], n=1, temperature=0.0,
                                  max_tokens=config.eval_max_tokens)
    right = [bool(services.verifier.verify(t, r[0]).is_correct) for t, r in zip(flat, replies)]
    per_group, start = [], 0
    for group in groups:
        per_group.append(all(right[start:start + len(group)]))
        start += len(group)
    return {"failures": len(groups), "all_solved": sum(per_group) / len(groups),
            "variants_solved": sum(right) / len(right)}


def held_out_and_paraphrases(policy: Any, families: list[str], n_per_cell: int, max_tokens: int,
                             paraphrases: int | None = None) -> tuple[dict, dict]:
    """(the held-out report, the paraphrase scores with their replies) of ``policy``, greedy: ``n_per_cell``
    tasks per cell and ``paraphrases`` prompts spread over the set (None or 0: all), paraphrases given 32
    tokens more (their wordings invite longer replies). With double_negation among ``families``, the scores
    hold the hand-written negation-parity set under "negation_parity" (``paraphrases`` of its prompts, spread the
    same way)."""
    from bench.paraphrases import PARITY_PATH, load_paraphrases, run_paraphrases

    report = evaluate_report(policy, families, n_per_cell, max_tokens=max_tokens)
    tokens = max_tokens + PARAPHRASE_EXTRA_TOKENS
    said = run_paraphrases(policy, max_tokens=tokens, rows=spread_subset(load_paraphrases(), paraphrases))
    if "double_negation" in families:
        said["negation_parity"] = run_paraphrases(
            policy, max_tokens=tokens, rows=spread_subset(load_paraphrases(PARITY_PATH), paraphrases))
    return report, said


def check_out_file(path: str) -> None:
    """ValueError unless ``path`` can be written as a file: a bench finds out only after its measurements."""
    out = Path(path)
    if out.is_dir() or not out.parent.is_dir():
        raise ValueError(f"--out must be a file in an existing folder, not {path}")


def spread_subset(rows: list, n: int | None) -> list:
    """``n`` rows spread evenly over the list (the set is grouped by idea, so every idea stays in)."""
    if not n or n >= len(rows):
        return rows
    return [rows[i * len(rows) // n] for i in range(n)]


def _log(message: str) -> None:
    import sys

    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def hunt_starts(families: list[str], episodes: int, seed: int) -> list[tuple[str, str, int]]:
    """(family, level, task seed) of a hunt: uniform over families × levels, training seeds."""
    from random import Random

    from alice_app.config import TRAIN_SEED_LIMIT
    from alice_app.types import LEVELS

    rng = Random(seed)
    return [(rng.choice(families), rng.choice(LEVELS), rng.randrange(TRAIN_SEED_LIMIT)) for _ in range(episodes)]


def play_fixed(policy: Any, services: Any, starts: list[tuple[str, str, int]], max_tokens: int) -> list[Any]:
    """5-turn hunt episodes on exactly these tasks (failures land in the bank, as in any hunt)."""
    begins = [lambda env, f=f, lv=lv, s=s: env.reset(seed=s, family=f, level=lv, mode="hunt") for f, lv, s in starts]
    return play_begins(policy, services, begins, max_tokens)


def play_begins(policy: Any, services: Any, begins: list[Any], max_tokens: int) -> list[Any]:
    """One 5-turn episode per ``begins`` entry (env -> first observation), ``HUNT_SLOTS`` side by side."""
    from alice_app.hunt import play_episodes

    envs = [services.new_environment(seed=slot) for slot in range(min(HUNT_SLOTS, len(begins)))]
    return list(play_episodes(policy, envs, iter(begins), len(begins), max_tokens=max_tokens))


def recheck_banked(model: Any, tokenizer: Any, services: Any, config: TrainConfig, ids: list[int],
                   seed: int) -> dict[str, Any]:
    """The product's recheck (``hunt --strategy recheck``) of these bank rows with the current weights:
    each unrepaired row on fresh variants played as repairs of it (first attempts), greedy. Returns the rows and episodes
    played and ``repaired``: whether each of ``ids`` is marked repaired after (the bank's rule: 3 variants
    solved unaided)."""
    from random import Random

    from alice_app.hunt import recheck_starts, recheck_tasks

    rows = [row for row in map(services.bank.get, dict.fromkeys(ids)) if row and not row["repaired"]]
    tasks = recheck_tasks(rows, Random(seed))
    if tasks:
        with eval_policy(model, tokenizer, services.settings, batch_size=HUNT_SLOTS) as policy:
            play_begins(policy, services, recheck_starts(tasks), config.eval_max_tokens)
    return {"rows": len(rows), "episodes": len(tasks),
            "repaired": [bool((services.bank.get(i) or {}).get("repaired")) for i in ids]}


def solve_rates(episodes: list[dict]) -> dict[str, float | None]:
    """Share solved at turn 1 (unaided) and by turn 5 (with feedback and hints)."""
    n = len(episodes)
    return {"turn1": sum(e["first"] for e in episodes) / n if n else None,
            "by_turn5": sum(e["solved"] for e in episodes) / n if n else None}


def repair_loop(before: dict, after: dict, repaired: list[bool]) -> dict[str, Any]:
    """Of the tasks the banking hunt (``before``) failed at turn 1, the share solved at turn 1 after training
    (the very same tasks are replayed), and the share of the banked rows that the bank marks repaired
    after training (``repaired``: by training's repair groups or the recheck's fresh variants)."""
    first_after = {e["task_id"]: e["first"] for e in after["episodes"]}
    failed = [e["task_id"] for e in before["episodes"] if not e["first"]]
    solved = [first_after[t] for t in failed if t in first_after]
    return {"failed_before": len(failed), "solved_after": sum(solved),
            "solved_share": sum(solved) / len(solved) if solved else None,
            "banked_rows": len(repaired), "repaired_share": sum(repaired) / len(repaired) if repaired else None}


class StepTimer:
    def __init__(self):
        self.seconds: list[float] = []
        self._started = 0.0

    def on_step_begin(self, args, state, control, **kwargs):
        self._started = time.perf_counter()

    def on_step_end(self, args, state, control, **kwargs):
        self.seconds.append(time.perf_counter() - self._started)


def bare_reward(completions, task, **_):
    """What a bare GRPO loop would use: tier-1 correctness only, no feedback, no storage."""
    import json

    from alice_app.training.rewards import completion_text
    from alice_app.types import Task
    from alice_app.verify.tier1 import check

    return [float(check(Task.from_dict(json.loads(t)), completion_text(c)).is_correct)
            for c, t in zip(completions, task)]


def run_overhead(steps: int, seed: int, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """Median step time of ALICE's trainer vs a bare GRPOTrainer, same prompts, seed and settings."""
    from datasets import Dataset
    from trl import GRPOTrainer

    with tempfile.TemporaryDirectory(prefix="alice-overhead-") as tmp:
        services = experiment_services(Path(tmp))
        config = arm_config("static", steps, seed, 0, overrides)
        families = config.training_families()
        rows = [item.to_row() for item in static_items(families, steps * config.prompts_per_step, seed)]
        times = {}
        for side in ("bare", "alice"):
            model, tokenizer = load_training_model(services.settings, config)
            timer = as_trainer_callback(StepTimer())
            if side == "bare":
                reward, callbacks = bare_reward, [timer]
            else:
                feed = CoevolvingFeed(families, services.curriculum, services.bank, seed=seed)
                run_id = services.runs.create("grpo", config.to_dict())
                reward = make_reward_function(services.verifier, feed.observe)
                callbacks = [run_recorder(services.runs, run_id, threading.Event()), timer]
            trainer = GRPOTrainer(model=model, reward_funcs=reward, args=config.to_grpo_config(str(Path(tmp) / side)),
                                  train_dataset=Dataset.from_list(rows), processing_class=tokenizer,
                                  peft_config=config.lora_config(), callbacks=callbacks)
            trainer.train()
            times[side] = timer.seconds
        draw_seconds = _feed_draw_seconds(services, families, seed)
        services.close()
    bare, alice = statistics.median(times["bare"]), statistics.median(times["alice"])
    alice_live = alice + draw_seconds * config.prompts_per_step
    return {"bare_step_seconds": times["bare"], "alice_step_seconds": times["alice"],
            "feed_draw_seconds": draw_seconds, "median_bare": bare, "median_alice": alice,
            "ratio": alice_live / bare}


def _feed_draw_seconds(services: Any, families: list[str], seed: int, draws: int = 200) -> float:
    feed = CoevolvingFeed(families, services.curriculum, services.bank, seed=seed)
    started = time.perf_counter()
    for _ in range(draws):
        feed.draw()
    return (time.perf_counter() - started) / draws
