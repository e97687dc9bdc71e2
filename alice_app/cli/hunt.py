"""Model commands: `hunt` (play episodes, bank failures) and `eval` (held-out accuracy).

    python -m alice_app hunt --episodes 50 --families negation_arithmetic false_claim
    python -m alice_app hunt --episodes 200 --strategy mutate --db /tmp/alice.db
    python -m alice_app hunt --episodes 300 --strategy recheck --adapter data/runs/3/adapter
    python -m alice_app eval --n-per-cell 10 --json
    python -m alice_app eval --adapter data/runs/3/adapter
    python -m alice_app eval --prompts my_wordings.jsonl --adapter data/runs/3/adapter
    python -m alice_app eval --wording free --adapter data/runs/3/adapter

The policy is the configured one (the embedded SmolLM2 unless MODEL_NAME / API_BASE_URL say
otherwise); loading it takes a few seconds, converting the embedded GGUF once takes ~30 s.
"""
from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Sequence

from alice_app.config import EVAL_MAX_TOKENS, HELD_OUT_SEED_START, Settings
from alice_app.tasks.wordings import WORDINGS


def register(subparsers) -> None:
    from alice_app.hunt import RECHECK_VARIANTS, STRATEGIES

    hunt = subparsers.add_parser("hunt", help="play 5-turn episodes with the policy and bank its failures")
    hunt.add_argument("--episodes", type=int, required=True, help="how many episodes to play")
    hunt.add_argument("--db", help="SQLite database (default: ALICE_DB or data/alice.db)")
    hunt.add_argument("--families", nargs="+", help="only these families (default: the curriculum picks)")
    hunt.add_argument("--strategy", choices=STRATEGIES, default="random",
                      help="random: curriculum picks; mutate: adversarial search around known failures; "
                           f"recheck: each unrepaired failure on {RECHECK_VARIANTS} fresh variants (first attempts "
                           "only), marked repaired when all are solved (after training, with --adapter)")
    hunt.add_argument("--adapter", help="a PEFT (LoRA) adapter folder to load on the base model")
    hunt.add_argument("--seed", type=int, default=0, help="seeds every choice, so a hunt can be replayed")
    hunt.add_argument("--batch-size", type=int, default=8, help="episodes played side by side")
    hunt.add_argument("--max-tokens", type=int, default=64, help="longest answer per turn")
    hunt.add_argument("--samples", type=int, default=1, help="k > 1: also sample k answers to each first attempt "
                                                             "(tier 3 confidence; right but unstable is banked)")
    hunt.add_argument("--wording", choices=WORDINGS, default="template",
                      help="free: ask the tasks in composed wordings where their family offers one (random strategy)")
    hunt.set_defaults(func=run_hunt_command)

    ev = subparsers.add_parser("eval", help="accuracy per family x level on held-out seeds (greedy, first attempt)")
    ev.add_argument("--json", action="store_true", help="print JSON instead of a table")
    ev.add_argument("--n-per-cell", type=int, default=20, help="tasks per family x level")
    ev.add_argument("--adapter", help="a PEFT (LoRA) adapter folder to load on the base model")
    ev.add_argument("--families", nargs="+", help="default: the core families and plain_arithmetic, their control "
                    "(the challenger family and reasoning-gym adapters are opt-in)")
    ev.add_argument("--seed-start", type=int, default=HELD_OUT_SEED_START, help="first held-out seed")
    ev.add_argument("--max-tokens", type=int, default=EVAL_MAX_TOKENS, help="longest answer per task")
    ev.add_argument("--wording", choices=WORDINGS, default="template",
                    help="free: the same held-out tasks in composed wordings instead of the family templates "
                         "(default families: those that offer it; see docs/tasks.md)")
    ev.add_argument("--prompts", metavar="FILE.jsonl", help="score your own hand-written prompts instead: one JSON "
                    "object a line with prompt and answer (distractors, idea, id optional; see alice_app/prompt_sets.py)")
    ev.set_defaults(func=run_eval_command)


def open_services(db: str | None):
    """Services over the configured settings, or over the database file ``db`` (a command's --db); a
    database that cannot be used is a ValueError, which the CLI prints as one line."""
    from alice_app.services import Services
    from alice_app.store.db import StoreError

    settings = Settings.from_env()
    if db:
        settings = settings.with_overrides(db_path=Path(db))
    try:
        return Services.from_settings(settings)
    except StoreError as exc:
        raise ValueError(str(exc)) from None


def run_hunt_command(args) -> int:
    from alice_app.hunt import archive_rows, axis_rows, check_hunt_args, run_hunt, summary_rows
    from alice_app.models.factory import build_policy

    check_hunt_args(args.episodes, args.families, args.strategy, args.batch_size, args.wording)  # before the model loads
    services = open_services(args.db)
    try:
        with _model_errors():
            policy = build_policy(services.settings, args.adapter) if args.adapter else services.policy
            report = run_hunt(policy, services, args.episodes, args.families, args.strategy,
                              seed=args.seed, batch_size=args.batch_size, max_tokens=args.max_tokens,
                              progress=True, samples=args.samples, wording=args.wording)
    finally:
        services.close()
    print(f"\n{len(report.results)} episodes with {report.model_id}; "
          f"{report.failures} failures banked in {services.settings.db_path}\n")
    print(format_table(summary_rows(report)))
    repaired, rechecked = report.repairs()
    if rechecked:
        print(f"\n{repaired} of the {rechecked} failures played as repairs are now marked repaired")
    if report.archive is not None:
        print("\nQuality-diversity archive (family x level x failure mode):\n")
        print(format_table(archive_rows(report.archive), clip=60) if report.archive.cells else "(empty)")
        print("\nMutation axes (how often a mutant of a failure still fails):\n")
        print(format_table(axis_rows(report.archive)))
    return 0


def run_eval_command(args) -> int:
    from alice_app.evaluation import LEVELS, check_eval_args, evaluate_report, mean_accuracy
    from alice_app.tasks import default_families
    from alice_app.tasks.wordings import worded_families
    from alice_app.models.factory import build_policy

    if args.prompts:
        return run_prompt_set_command(args)
    settings = Settings.from_env()
    families = args.families or (default_families() if args.wording == "template" else worded_families())
    check_eval_args(families, LEVELS, args.n_per_cell, args.seed_start, args.wording)  # before the model loads
    with _model_errors():
        policy = build_policy(settings, adapter=args.adapter)
        report = evaluate_report(policy, families, args.n_per_cell, args.seed_start, max_tokens=args.max_tokens,
                                 progress=not args.json, wording=args.wording)
    seeds = [args.seed_start, args.seed_start + args.n_per_cell - 1]
    if args.json:
        print(json.dumps({"model": policy.model_id, "seed_range": seeds, "n_per_cell": args.n_per_cell,
                          "wording": args.wording, **report}, indent=2))
        return 0
    worded = "" if args.wording == "template" else ", in free wordings"
    print(f"\n{policy.model_id}: greedy first attempts, {args.n_per_cell} tasks per cell, "
          f"held-out seeds {seeds[0]}..{seeds[1]}{worded}\n")
    if report["mean_penalty"] is not None:
        print(f"distraction penalty (control − family accuracy), mean over cells: {report['mean_penalty']:+.3f}\n")
    print(format_table(eval_rows(report)))
    shortcuts = report["shortcuts"]
    print(f"\nmean accuracy: {mean_accuracy(report['accuracy']):.3f}; wrong answers that are a prompt number: "
          f"{_share(shortcuts['prompt_number'])}; replies contradicting their own last result: "
          f"{_share(shortcuts['self_contradiction'])}")
    return 0


def run_prompt_set_command(args) -> int:
    from alice_app.models.factory import build_policy
    from alice_app.prompt_sets import SHARES, load_prompt_set, run_prompt_set

    rows = load_prompt_set(args.prompts)  # a bad file is refused before the model loads
    with _model_errors():
        policy = build_policy(Settings.from_env(), adapter=args.adapter)
        report = run_prompt_set(policy, rows, max_tokens=args.max_tokens)
    if args.json:
        print(json.dumps({"model": policy.model_id, "prompts": args.prompts, **report}, indent=2))
        return 0
    print(f"\n{policy.model_id}: greedy replies to {report['n']} prompts of {args.prompts}\n")
    print(format_table([{"share": name.replace("_", " "), "value": f"{report[name]:.0%}"} for name in SHARES]))
    if len(report["by_idea"]) > 1:
        print("\ncorrect per idea:\n")
        print(format_table([{"idea": idea, "correct": f"{share:.0%}"} for idea, share in report["by_idea"].items()]))
    return 0


def eval_rows(report: dict) -> list[dict[str, str]]:
    """One row per family: accuracy per level, then (for families with a twin) "control/penalty"."""
    rows = []
    for family, cells in report["accuracy"].items():
        row = {"family": family, **{level: f"{acc:.2f}" for level, acc in cells.items()}}
        for level in cells:
            control, penalty = report["control"].get(family, {}), report["penalty"].get(family, {})
            row[f"{level} control/penalty"] = (f"{control[level]:.2f}/{penalty[level]:+.2f}" if level in penalty
                                               else "-")
        rows.append(row)
    return rows


def _share(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


@contextmanager
def _model_errors() -> Iterator[None]:
    """A missing model or a failing endpoint is not a usage error: one clear line, exit code 1."""
    from alice_app.models.base import BackendError
    from alice_app.models.loader import ModelNotFoundError

    try:
        yield
    except (ModelNotFoundError, BackendError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(1) from None


def format_table(rows: Sequence[dict], clip: int = 0) -> str:
    """A plain fixed-width table; ``clip`` shortens long cells (prompts) to that many characters."""
    if not rows:
        return "(no rows)"
    columns = list(rows[0])
    cells = [[_cell(row.get(column), clip) for column in columns] for row in rows]
    widths = [max(len(column), *(len(r[i]) for r in cells)) for i, column in enumerate(columns)]
    lines = [columns, ["-" * w for w in widths], *cells]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() for line in lines)


def _cell(value, clip: int) -> str:
    text = " ".join(str(value).split()) if value is not None else "-"
    return text[: clip - 1] + "…" if clip and len(text) > clip else text
