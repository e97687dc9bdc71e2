"""Challenger benchmark: proposal quality before/after challenger training, transfer to hand-written
paraphrases, and a duel of the embedded model against itself + the co-evolved solver adapter.

    python bench/challenger.py --quick                       # minutes: checks the pipeline
    python bench/challenger.py                               # the reduced run in assets/challenger_results.json
    python bench/challenger.py --seeds 3 --transfer-steps 40 --rounds 3 --proposals 32   # the issue's run
    python bench/challenger.py --seeds 3 --harvest 256 --transfer-worked 128 --transfer-steps 10  # taught arms

1. **Proposals before/after**: the embedded challenger (fresh, then with the adapter from
   ``--rounds`` co-evolution rounds) writes ``--proposals`` proposals from the same prompts; each is
   judged against the seed templates only (same yardstick both times; with ``--warm-start N`` the N
   composed wordings the warm start teaches are part of it too) and measured on the *base* solver:
   validity, novelty and zone rates, mean reward, rejection reasons. ``--warm-start N`` also measures
   the challenger right after its warm start ("warm": fine-tuned on N composed proposals, no GRPO).
2. **Transfer**: per seed, two solvers from the same base get the same GRPO budget
   (``--transfer-steps``): template tasks only, vs half template tasks and half tasks filled from the
   accepted challenger templates; both are scored (greedy) on bench/data/paraphrases.jsonl, which no
   template and no challenger output was trained on. With no accepted template the second arm
   cannot exist, and the JSON says so. ``--transfer-worked N`` starts each arm with the learning bench's
   worked warm start on N of its own tasks (the challenger arm: N/2 template tasks and as many fills as it takes
   to teach as many examples as the template arm), so the arms differ in what they were taught,
   not only in a few GRPO groups; ``--harvest N`` lets the trained challenger write N more proposals first,
   whose valid, novel ones are accepted too (one round accepts one or two). ``--transfer-arms`` picks the
   solvers, among them the control "templates, one wording" (the challenger arm's shape from our own
   templates); ``--transfer-from RAW.json`` runs the transfer alone with the templates that run accepted:
       python bench/challenger.py --transfer-from assets/challenger_taught_transfer_equal.json \
           --transfer-arms "templates, one wording" --seeds 3 --transfer-worked 128 --transfer-steps 10
   and ``--first-seed 3`` adds seeds 3, 4, ... to such a run.
3. **Duel**: embedded vs embedded + the co-evolved solver adapter: both failure maps.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="tiny sizes: checks the pipeline in minutes")
    parser.add_argument("--proposals-only", action="store_true",
                        help="only part 1's 'before': the fresh challenger's proposals judged (no training)")
    parser.add_argument("--proposals", type=int, default=8, help="proposals judged before and after")
    parser.add_argument("--rounds", type=int, default=1, help="co-evolution rounds between before and after")
    parser.add_argument("--challenger-steps", type=int, default=3, help="challenger GRPO steps per round")
    parser.add_argument("--solver-steps", type=int, default=1, help="solver GRPO steps per round")
    parser.add_argument("--transfer-steps", type=int, default=4, help="solver GRPO steps per transfer arm")
    parser.add_argument("--seeds", type=int, default=1, help="transfer seeds (--first-seed, then the next ones)")
    parser.add_argument("--first-seed", type=int, default=0,
                        help="the first transfer seed: more seeds of a finished run, e.g. with --transfer-from")
    parser.add_argument("--k", type=int, default=2, help="solver samples per filled task")
    parser.add_argument("--duel-budget", type=int, default=4, help="proposals per duel side")
    parser.add_argument("--warm-start", type=int, default=0,
                        help="fine-tune the challenger on N composed proposals first (measured as 'warm')")
    parser.add_argument("--harvest", type=int, default=0,
                        help="after training, the trained challenger writes N more proposals; the valid, novel ones "
                             "are accepted too, so the transfer arm has more challenger wordings")
    parser.add_argument("--transfer-worked", type=int, default=0,
                        help="each transfer arm first fine-tunes on the engine's worked solutions of N of its own "
                             "tasks (templates only, or N/2 of them + challenger fills up to as many examples), "
                             "then takes its GRPO steps")
    parser.add_argument("--transfer-arms", nargs="+", choices=TRANSFER_ARMS, default=[TEMPLATES, CHALLENGER],
                        help=f"the transfer's solvers; '{ONE_WORDING}' (needs --transfer-worked) is taught like the "
                             "challenger arm from our own templates: half the template tasks in all wordings, other "
                             "template tasks in one")
    parser.add_argument("--transfer-from", metavar="RAW.json",
                        help="no challenger phases: the transfer alone, with the templates a run accepted (its JSON)")
    parser.add_argument("--paraphrase-tokens", type=int, default=64, help="tokens per paraphrase answer")
    parser.add_argument("--out", default=str(ROOT / "assets" / "challenger_results.json"), help="the JSON file written")
    args = parser.parse_args(argv)
    if args.quick:
        args.proposals, args.challenger_steps, args.solver_steps, args.transfer_steps = 2, 1, 1, 1
        args.duel_budget, args.paraphrase_tokens = 1, 16
    sizes = ("proposals", "rounds", "challenger_steps", "solver_steps", "transfer_steps", "seeds", "k",
             "duel_budget", "paraphrase_tokens")
    small = [f"--{name.replace('_', '-')} {getattr(args, name)}" for name in sizes if getattr(args, name) < 1]
    if small:
        parser.error(f"these must be at least 1: {', '.join(small)}")  # before any model loads
    if args.first_seed < 0:
        parser.error(f"--first-seed must be at least 0, not {args.first_seed}")
    for name in ("warm_start", "harvest", "transfer_worked"):
        if not 0 <= getattr(args, name) <= 1000:
            parser.error(f"--{name.replace('_', '-')} must lie in 0..1000, not {getattr(args, name)}")
    if ONE_WORDING in args.transfer_arms and not args.transfer_worked:
        parser.error(f"the '{ONE_WORDING}' arm needs --transfer-worked N (it differs only in its worked warm start)")
    if args.transfer_from:
        try:
            args.accepted = accepted_templates(args.transfer_from)
        except (OSError, ValueError) as exc:
            parser.error(f"--transfer-from: {exc}")
    from bench.experiment import check_out_file

    try:
        check_out_file(args.out)
    except ValueError as exc:
        parser.error(str(exc))
    return args


def yardstick(warm_start: int) -> list[str]:
    """The wordings novelty is judged against: the seed templates, and what a warm start of ``warm_start`` teaches."""
    from alice_app.challenger.family import SEED_TEMPLATES
    from alice_app.challenger.warm_start import warm_start_wordings

    return [p.template for p in SEED_TEMPLATES] + warm_start_wordings(warm_start, 0)


def proposal_quality(services, policy, solver, count: int, k: int, seed: int = 0, warm_start: int = 0,
                     harvest: bool = False) -> dict:
    """``count`` proposals of ``policy`` judged (novelty against ``yardstick``, difficulty on ``solver``); with
    ``harvest``, novelty is judged against every known wording and the accepted ones are stored."""
    from transformers import set_seed

    from alice_app.challenger.family import SEED_TEMPLATES, known_wordings
    from alice_app.challenger.judge import judge_batch, persist, summarize
    from alice_app.challenger.policy import propose
    from alice_app.challenger.warm_start import warm_start_wordings

    shown = [p.template for p in SEED_TEMPLATES]  # the challenger's prompt shows the seed templates
    # harvesting: also novel against what this run accepted so far (the same wordings as yardstick's, and the store's)
    known = known_wordings(services.templates, warm_start_wordings(warm_start, 0)) if harvest else yardstick(warm_start)
    set_seed(seed)  # the solver's k samples draw from the global generator (propose seeds its own sampling)
    batch = propose(policy, count, seed, shown)
    judgements = judge_batch(batch.texts, known, solver=solver, verifier=services.verifier, fills=1, k=k,
                             seed=seed, ops=batch.ops)
    if harvest:
        persist(judgements, services.templates, proposer=policy.model_id, solver_id=solver.model_id)
    zone = services.curriculum.load_config().zone
    return {**summarize(judgements, zone), "error": batch.error, "judged": [j.to_dict() for j in judgements]}


TEMPLATES, CHALLENGER, ONE_WORDING = "templates", "templates+challenger", "templates, one wording"
TRANSFER_ARMS = (TEMPLATES, CHALLENGER, ONE_WORDING)


def transfer_arm(services, base_settings, arm: str, steps: int, seed: int, folder: Path,
                 paraphrase_tokens: int, worked: int = 0) -> dict:
    """One solver (``arm`` of TRANSFER_ARMS) from the base model: with ``worked``, a fine-tuning on the worked
    solutions of that many of its tasks (``_worked_tasks``); then ``steps`` GRPO steps (half on challenger
    fills in the challenger arm, all on template tasks in the others); then the paraphrase score."""
    from alice_app.challenger.coevolve import CoevolveConfig, Role, solver_phase
    from alice_app.training.runner import load_training_model
    from bench.paraphrases import run_paraphrases

    use_challenger = arm == CHALLENGER
    config = CoevolveConfig(solver_steps=steps, seed=seed, template_share=0.5 if use_challenger else 1.0)
    role = Role("transfer-solver", *load_training_model(base_settings, config.train_config("solver")))

    stats: dict = worked_start(role, config, *_worked_tasks(services, config, worked, arm)) if worked else {}
    tasks, note = (_mixed_tasks(services, config, steps * config.prompts_per_step) if use_challenger
                   else _template_tasks(config, steps * config.prompts_per_step))
    started = time.perf_counter()
    solver_phase(services, config, role, tasks, folder, stats)
    seconds = time.perf_counter() - started
    scored = run_paraphrases(role.policy(), max_tokens=paraphrase_tokens)
    return {"challenger_tasks": sum(t.family == "challenger" for t in tasks), "prompts": len(tasks), "note": note,
            "train_seconds": round(seconds, 1), **stats, "paraphrases": {k: v for k, v in scored.items() if k != "replies"}}


def worked_start(role, config, tasks: list, once: set = frozenset()) -> dict:
    """Give ``role`` a fresh LoRA adapter (seeded) and one epoch of fine-tuning on the engine's worked solutions
    of ``tasks`` in all their wordings, those whose id is in ``once`` in their first (the learning bench's
    worked warm start); what it taught."""
    from peft import get_peft_model
    from transformers import set_seed

    from alice_app.training.warm_start import teach

    train_config = config.train_config("solver")
    set_seed(config.seed)
    role.model, role.trained = get_peft_model(role.model, train_config.lora_config()), True
    report = teach(role.model, role.tokenizer, _taught(tasks, once), train_config.fine_tune_learning_rate,
                   prompts=len(tasks))
    return {"worked_tasks": len(tasks), "worked_challenger_tasks": sum(t.family == "challenger" for t in tasks),
            "worked_examples": report.kept, "worked_mean_loss": round(report.mean_loss or 0.0, 4),
            "worked_seconds": round(report.seconds, 1)}


def _taught(tasks: list, once: set = frozenset()) -> list:
    """The worked examples of ``tasks`` in order, each in all its wordings, or its first alone if its id is in
    ``once``."""
    from alice_app.training.warm_start import worked_examples

    return [example for task in tasks for example in worked_examples([task])[:1 if task.id in once else None]]


def _worked_tasks(services, config, count: int, arm: str) -> tuple[list, set]:
    """What an arm's worked warm start teaches, in order, and the ids of the tasks taught in one wording only:
    the template arm ``count`` template tasks; the challenger arm half of them and challenger fills (one wording
    each), as many as it takes to teach as many examples; the one-wording arm the challenger arm's shape from
    our own templates (the same half, and other template tasks where it has fills, each in its first wording),
    which separates "challenger wordings" from "more distinct tasks, fewer repeats". A template task is taught in
    each of its wordings, so equal task counts would teach the challenger arm a third fewer examples (measured:
    255 vs 382 for 128 tasks)."""
    from random import Random

    templates, _ = _template_tasks(config, count, 1)
    if arm == TEMPLATES:
        return templates, set()
    mixed, _ = _mixed_tasks(services, config, count, 1)
    missing = max(len(_taught(templates)) - len(_taught(mixed)), 0)  # a fill teaches one example
    mixed += _fills(services, missing, Random(config.seed * 7919 + 2))
    if arm == CHALLENGER:
        return mixed, set()
    seen = {task.prompt for task in templates}
    others = iter([task for task in _template_tasks(config, 2 * len(mixed), 2)[0] if task.prompt not in seen])
    tasks = [next(others) if task.family == "challenger" else task for task in mixed]
    return tasks, {task.id for task, was in zip(tasks, mixed) if was.family == "challenger"}


def _template_tasks(config, count: int | None = None, salt: int = 0) -> tuple[list, str]:
    """``count`` (default: the solver's steps × prompts per step) tasks of the training families."""
    from alice_app.training.config import TrainConfig
    from alice_app.training.feed import static_items

    count = config.solver_steps * config.prompts_per_step if count is None else count
    items = static_items(TrainConfig().training_families(), count, config.seed * 31 + salt)
    return [item.task for item in items], "template tasks only"


def _mixed_tasks(services, config, count: int | None = None, salt: int = 0) -> tuple[list, str]:
    """Half template tasks, half fresh fills of every accepted challenger template (same count)."""
    from random import Random

    templates, _ = _template_tasks(config, count, salt)
    rng = Random(config.seed * 7919 + salt)
    half = len(templates) // 2 or 1
    tasks = templates[: len(templates) - half] + _fills(services, half, rng)
    rng.shuffle(tasks)
    accepted = len(services.templates.wordings())
    return tasks, f"{half} of {len(tasks)} prompts from {accepted} accepted challenger template(s)"


def _fills(services, count: int, rng) -> list:
    """``count`` fresh fills of the accepted challenger templates, each template and seed drawn from ``rng``."""
    from alice_app.challenger.family import fill
    from alice_app.challenger.proposal import Proposal
    from alice_app.config import TRAIN_SEED_LIMIT

    accepted = [Proposal(t, op) for t, op in services.templates.wordings()]
    return [fill(rng.choice(accepted), rng.randrange(TRAIN_SEED_LIMIT)) for _ in range(count)]


def main(argv=None) -> int:
    args = parse_args(argv)
    from alice_app.models.factory import build_policy
    from bench.experiment import experiment_services

    started = time.perf_counter()
    result: dict = {"args": {k: v for k, v in vars(args).items() if k != "accepted"}}  # those: accepted_templates
    with tempfile.TemporaryDirectory(prefix="alice-challenger-") as tmp:
        services = experiment_services(Path(tmp))
        if args.transfer_from:  # the templates an earlier run accepted, oldest first as that run's store gave them
            for proposal in args.accepted:
                services.templates.accept(proposal, proposer=args.transfer_from, novelty=1.0)
            result["accepted_templates"] = stored_templates(services)
            result["transfer"] = run_transfer(services, services.settings, args, Path(tmp))
            return finish(services, result, args, started)
        base = build_policy(services.settings)
        print("proposals before challenger training ...", flush=True)
        result["before"] = proposal_quality(services, base, base, args.proposals, args.k, warm_start=args.warm_start)
        if args.warm_start:
            print(f"proposals after a warm start of {args.warm_start} composed proposals ...", flush=True)
            result["warm"] = proposal_quality(services, warm_challenger(services, args), base, args.proposals, args.k,
                                              warm_start=args.warm_start)
        if not args.proposals_only:
            train_and_compare(services, base, args, Path(tmp), result)
        return finish(services, result, args, started)


def finish(services, result: dict, args, started: float) -> int:
    services.close()
    result["seconds"] = round(time.perf_counter() - started, 1)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2, default=str) + "\n")
    print(json.dumps(headline(result), indent=2))
    return 0


def stored_templates(services) -> list[dict]:
    """The accepted templates as a run's JSON keeps them, newest first (``accepted_templates`` reads them back)."""
    keys = ("template_id", "template", "op", "pass_rate", "n")
    return [{k: row[k] for k in keys} for row in services.templates.accepted()]


def accepted_templates(path: str) -> list:
    """The templates a saved run accepted, oldest first (its ``accepted_templates`` lists the newest first)."""
    from alice_app.challenger.proposal import Proposal

    rows = json.loads(Path(path).read_text()).get("accepted_templates")
    if not rows:
        raise ValueError(f"{path} lists no accepted_templates")
    return [Proposal(str(row["template"]), str(row["op"])) for row in reversed(rows)]


def warm_challenger(services, args):
    """A fresh copy of the embedded challenger after its warm start (as ``coevolve`` runs it before round 1)."""
    from alice_app.challenger.coevolve import CoevolveConfig, Role
    from alice_app.challenger.family import SEED_TEMPLATES
    from alice_app.challenger.warm_start import composed_proposals, run_challenger_warm_start
    from alice_app.training.runner import load_training_model

    config = CoevolveConfig(challenger_warm_start=args.warm_start).validate()
    train_config = config.train_config("challenger")
    model, tokenizer = load_training_model(services.settings, train_config)
    model, report = run_challenger_warm_start(model, tokenizer, train_config.lora_config(),
                                              composed_proposals(args.warm_start, config.seed), config.seed,
                                              [p.template for p in SEED_TEMPLATES], config.learning_rate)
    print(f"warm start: {report.kept} examples, {report.steps} steps, {report.seconds:.0f} s", flush=True)
    return Role("challenger:warm", model, tokenizer, trained=True).policy()


def train_and_compare(services, base, args, tmp: Path, result: dict) -> None:
    """Parts 1 (after), 2 and 3: co-evolution rounds, the trained challenger's proposals, transfer, duel."""
    from alice_app.challenger.coevolve import CoevolveConfig, run_coevolve
    from alice_app.challenger.duel import duel
    from alice_app.models.factory import build_policy

    settings = services.settings
    config = CoevolveConfig(rounds=args.rounds, challenger_steps=args.challenger_steps,
                            solver_steps=args.solver_steps, k=args.k, fills=1, challenger_warm_start=args.warm_start)
    print("co-evolution ...", flush=True)
    coevolved = run_coevolve(services, config, tmp / "coevolve")
    result["coevolve"] = coevolved["rounds"]
    last = tmp / "coevolve" / f"round-{args.rounds}"
    trained = build_policy(settings, adapter=last / "challenger" / "adapter")
    print("proposals after challenger training ...", flush=True)
    result["after"] = proposal_quality(services, trained, base, args.proposals, args.k, warm_start=args.warm_start)
    if args.harvest:
        print(f"harvest: {args.harvest} proposals of the trained challenger ...", flush=True)
        harvested = proposal_quality(services, trained, base, args.harvest, args.k, seed=1, warm_start=args.warm_start,
                                     harvest=True)
        result["harvest"] = {key: value for key, value in harvested.items() if key != "judged"}
    result["accepted_templates"] = stored_templates(services)
    result["transfer"] = run_transfer(services, settings, args, tmp)
    print("duel ...", flush=True)
    solver = build_policy(settings, adapter=last / "solver" / "adapter")
    result["duel"] = duel(services, base, solver, budget=args.duel_budget, k=args.k, fills=1)


def run_transfer(services, settings, args, folder: Path) -> dict:
    from bench.paraphrases import run_paraphrases
    from alice_app.models.factory import build_policy

    print("transfer: base model on the paraphrases ...", flush=True)
    base_score = run_paraphrases(build_policy(settings), max_tokens=args.paraphrase_tokens)
    out = {"base": {k: v for k, v in base_score.items() if k != "replies"}, "seeds": []}
    if not services.templates.accepted():
        out["note"] = "no challenger template was accepted: the template + challenger arm cannot be trained"
        return out
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        row = {"seed": seed}
        for arm in dict.fromkeys(args.transfer_arms):
            print(f"transfer seed {seed}: {arm} ...", flush=True)
            row[arm] = transfer_arm(services, settings, arm, args.transfer_steps, seed, folder / f"t{seed}-{arm}",
                                    args.paraphrase_tokens, args.transfer_worked)
        out["seeds"].append(row)
    return out


def headline(result: dict) -> dict:
    """The figures worth printing, of whichever parts ran."""
    pick = ("validity_rate", "novelty_rate", "zone_rate", "mean_reward", "rewarded_share", "rejections")
    out = {part: {k: result[part][k] for k in pick} for part in ("before", "warm", "after") if part in result}
    out["seconds"] = result["seconds"]
    if "transfer" in result:
        transfer = result["transfer"]
        out.update(accepted_templates=len(result["accepted_templates"]), paraphrases_base=transfer["base"]["correct"],
                   transfer=[{arm: row[arm]["paraphrases"]["correct"] for arm in TRANSFER_ARMS if arm in row}
                             for row in transfer["seeds"]] or transfer.get("note"))
    if "duel" in result:
        out["duel"] = {name: [(r["source"], r["op"], r["pass_rate"]) for r in side["failure_map"]]
                       for name, side in result["duel"]["sides"].items()}
    return out


if __name__ == "__main__":
    sys.exit(main())
