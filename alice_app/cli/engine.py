"""Engine commands: `tasks`, `verify`, `families` (no database) and `bank` (the failure bank).

    python -m alice_app tasks --family negation_arithmetic --level easy --seed 0 --n 3
    python -m alice_app verify --family negation_arithmetic --level easy --seed 0 --response "Answer: 7"
    python -m alice_app families
    python -m alice_app bank list --family false_claim --page-size 5
    python -m alice_app bank export failures.jsonl --repaired no

Output is JSON (one object per line), so it pipes into `jq` or a script.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from alice_app.types import LEVELS

MAX_TASKS = 100_000


def register(subparsers) -> None:
    tasks = subparsers.add_parser("tasks", help="generate tasks as JSON lines (seeds S..S+N-1)")
    _task_args(tasks)
    tasks.add_argument("--n", type=int, default=1, help=f"how many tasks (1..{MAX_TASKS})")
    tasks.set_defaults(func=run_tasks)

    verify = subparsers.add_parser("verify", help="judge a response to one task; prints the verdict JSON")
    _task_args(verify)
    verify.add_argument("--response", required=True, help="the answer text to judge")
    verify.set_defaults(func=run_verify)

    families = subparsers.add_parser("families", help="list the registered task families")
    families.set_defaults(func=run_families)

    bank = subparsers.add_parser("bank", help="list or export the failure bank (the database in ALICE_DB)")
    actions = bank.add_subparsers(dest="bank_command", required=True, parser_class=type(bank))
    listing = actions.add_parser("list", help="one page of failures, newest first, as JSON lines")
    _filter_args(listing)
    listing.add_argument("--page", type=int, default=1)
    listing.add_argument("--page-size", type=int, default=20)
    listing.set_defaults(func=run_bank_list)
    export = actions.add_parser("export", help="every matching failure into a JSONL file, DPO pairs or parquet")
    export.add_argument("path", help="the file to write (replaced atomically); a folder for parquet")
    export.add_argument("--format", choices=("jsonl", "dpo", "parquet"), default="jsonl",
                        help="jsonl: bank rows; dpo: verified (prompt, chosen, rejected) pairs as JSONL; "
                             "parquet: a Hub dataset folder with its card")
    _filter_args(export)
    export.set_defaults(func=run_bank_export)
    from alice_app.cli.hub import register_bank_actions

    register_bank_actions(actions, _filter_args)


def _task_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--family", required=True, help="a family name (see `families`)")
    parser.add_argument("--level", required=True, choices=LEVELS)
    parser.add_argument("--seed", type=int, default=0, help="the task seed (>= 0)")


def _filter_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--family")
    parser.add_argument("--level", choices=LEVELS)
    parser.add_argument("--mode", help="failure mode, e.g. distractor_echo")
    parser.add_argument("--tag")
    parser.add_argument("--repaired", choices=("yes", "no"))
    parser.add_argument("--search", help="full-text search over prompt, response, notes and tags")
    parser.add_argument("--since", help="last seen on or after (2026-11-30 or an ISO time)")
    parser.add_argument("--until", help="last seen on or before")


def _task(args: argparse.Namespace, seed: int):
    from alice_app.tasks import generate_task

    if seed < 0:
        raise ValueError(f"--seed must be >= 0, not {seed}")
    return generate_task(args.family, args.level, seed)


def run_tasks(args: argparse.Namespace) -> int:
    if not 1 <= args.n <= MAX_TASKS:
        raise ValueError(f"--n must be between 1 and {MAX_TASKS}, not {args.n}")
    tasks = [_task(args, seed) for seed in range(args.seed, args.seed + args.n)]  # fail before printing
    for task in tasks:
        _print(task.to_dict())
    return 0


def run_verify(args: argparse.Namespace) -> int:
    from alice_app.verify.stack import VerifierStack

    task = _task(args, args.seed)
    verdict = VerifierStack().verify(task, args.response)
    _print({"task_id": task.id, "expected": task.answer, **verdict.to_dict()})
    return 0


def run_families(args: argparse.Namespace) -> int:
    from alice_app.tasks import family_names, get_family

    for name in family_names():
        family = get_family(name)
        _print({"name": name, "core": family.core, "description": family.description,
                "params": list(family.params)})
    return 0


def _filters(args: argparse.Namespace) -> dict[str, Any]:
    repaired = {"yes": True, "no": False, None: None}[args.repaired]
    return {"family": args.family, "level": args.level, "mode": args.mode, "tag": args.tag,
            "repaired": repaired, "search": args.search, "since": args.since, "until": args.until}


def _bank():
    from alice_app.config import Settings
    from alice_app.store.db import StoreError, open_db
    from alice_app.store.failures import FailureBank

    try:
        return FailureBank(open_db(Settings.from_env().db_path))
    except StoreError as exc:
        raise ValueError(str(exc)) from None


def run_bank_list(args: argparse.Namespace) -> int:
    page = _bank().query(**_filters(args), page=args.page, page_size=args.page_size)
    for row in page.rows:
        _print(row)
    print(f"page {page.page} of {page.pages} ({page.total} failures)", file=sys.stderr)
    return 0


def run_bank_export(args: argparse.Namespace) -> int:
    if args.format != "jsonl":
        from alice_app.cli.hub import export_bank

        return export_bank(args, _filters(args))
    count = _bank().export_jsonl(args.path, **_filters(args))
    print(f"wrote {count} failures to {args.path}", file=sys.stderr)
    return 0


def _print(obj: dict) -> None:
    print(json.dumps(obj, ensure_ascii=False, default=str))
