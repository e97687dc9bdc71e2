"""Hub and multi-server commands: bank export --format dpo|parquet, bank push, bank merge,
dpo push, adapter push.

    python -m alice_app bank export pairs.jsonl --format dpo     # TRL's conversational DPO rows
    python -m alice_app bank export out/ --format parquet       # parquet + dataset card (offline)
    python -m alice_app bank push user/alice-failures [--private]
    python -m alice_app bank merge replica-1.db replica-2.db    # into ALICE_DB
    python -m alice_app dpo push user/alice-dpo
    python -m alice_app adapter push 3 user/alice-smollm2-lora  # run 3's LoRA + model card

A push builds the folder first (under <data>/hub/<name>, or --out) and keeps it when the upload
fails, so nothing is lost offline.
"""
from __future__ import annotations

import argparse
import sys
from contextlib import closing
from pathlib import Path
from typing import Any, Callable

from alice_app.cli.hunt import open_services

EMBEDDED_BASE = "HuggingFaceTB/SmolLM2-135M-Instruct"  # the checkpoint the embedded GGUF was made from


def register(subparsers) -> None:
    dpo = subparsers.add_parser("dpo", help="DPO pairs from the failure bank, for the Hub")
    actions = dpo.add_subparsers(dest="dpo_command", required=True, parser_class=type(dpo))
    push = actions.add_parser("push", help="build the DPO dataset (parquet + card) and push it")
    _push_args(push)
    push.add_argument("--limit", type=int, default=10_000, help="at most this many pairs")
    push.add_argument("--families", nargs="+", help="only these families")
    push.set_defaults(func=run_dpo_push)

    adapter = subparsers.add_parser("adapter", help="a training run's LoRA adapter, for the Hub")
    actions = adapter.add_subparsers(dest="adapter_command", required=True, parser_class=type(adapter))
    push = actions.add_parser("push", help="push a run's adapter as a PEFT model with its before/after card")
    push.add_argument("run_id", type=int, help="the training run (see the Training tab or `train`)")
    _push_args(push, repo_type="model")
    push.set_defaults(func=run_adapter_push)


def register_bank_actions(actions: Any, filter_args: Callable[[argparse.ArgumentParser], None]) -> None:
    """``bank push`` and ``bank merge``, added to the ``bank`` group built in ``cli/engine.py``."""
    push = actions.add_parser("push", help="build the failure dataset (parquet + card) and push it")
    _push_args(push)
    filter_args(push)
    push.set_defaults(func=run_bank_push)
    merge = actions.add_parser("merge", help="fold other servers' databases into this one (ALICE_DB)")
    merge.add_argument("sources", nargs="+", help="SQLite files of other ALICE servers")
    merge.set_defaults(func=run_bank_merge)


def _push_args(parser: argparse.ArgumentParser, repo_type: str = "dataset") -> None:
    parser.add_argument("repo_id", help=f"the Hub {repo_type} repository, user/name")
    parser.add_argument("--out", help="folder to build in (default: <data>/hub/<name>)")
    parser.add_argument("--private", action="store_true", help="create the repository as private")
    parser.add_argument("--license", default=None, help="licence in the card (default: apache-2.0)")
    parser.set_defaults(repo_type=repo_type)


def export_bank(args: argparse.Namespace, filters: dict[str, Any]) -> int:
    """``bank export PATH --format dpo|parquet``."""
    with closing(open_services(None)) as services:
        if args.format == "dpo":
            from alice_app.training.dpo import export_dpo_dataset

            family = filters.get("family")
            count = export_dpo_dataset(services.bank, services.verifier, args.path,
                                       families=[family] if family else None)
            print(f"wrote {count} DPO pairs to {args.path}", file=sys.stderr)
            return 0
        folder = _build_failures(services, Path(args.path), filters, None)
        print(f"wrote the failure dataset (parquet + README.md card) to {folder}", file=sys.stderr)
        return 0


def run_bank_push(args: argparse.Namespace) -> int:
    from alice_app.cli.engine import _filters

    with closing(open_services(None)) as services:
        folder = _build_failures(services, _folder(services, args), _filters(args), args.license)
        return _push(folder, args)


def run_dpo_push(args: argparse.Namespace) -> int:
    from alice_app import hub
    from alice_app.training.dpo import dpo_pairs

    with closing(open_services(None)) as services:
        pairs = dpo_pairs(services.bank, services.verifier, limit=args.limit, families=args.families)
        records = hub.dpo_records(pairs)
        card = hub.dataset_card("dpo", records, model=_model(services), licence=args.license or hub.LICENCE)
        return _push(hub.write_dataset_folder(records, card, _folder(services, args)), args)


def run_adapter_push(args: argparse.Namespace) -> int:
    from alice_app import hub
    from alice_app.cli.train import before_after_rows

    with closing(open_services(None)) as services:
        run = services.runs.get(args.run_id)
        if run is None:
            raise ValueError(f"no training run with id {args.run_id}")
        checkpoint = str(run.get("checkpoint") or "")
        adapter = Path(checkpoint) if checkpoint.endswith("adapter") else (
            Path(services.settings.runs_dir) / f"run-{args.run_id}" / "adapter")
        card = hub.model_card(base_model=_model(services), run=run, licence=args.license or hub.LICENCE,
                              before_after=before_after_rows(services.runs.evals(args.run_id)))
        return _push(hub.write_adapter_folder(adapter, card, _folder(services, args)), args)


def run_bank_merge(args: argparse.Namespace) -> int:
    from alice_app.store.merge import merge_bank

    with closing(open_services(None)) as services:
        for source in args.sources:
            counts = merge_bank(services.db, source)
            print(f"{source}: {counts['incoming']} failures, {counts['new']} new; the bank now holds {counts['after']}",
                  file=sys.stderr)
        return 0


def _build_failures(services: Any, folder: Path, filters: dict[str, Any], licence: str | None) -> Path:
    from alice_app import hub

    records = hub.failure_records(services.bank.iter_rows(**filters))
    card = hub.dataset_card("failures", records, model=_model(services), licence=licence or hub.LICENCE)
    return hub.write_dataset_folder(records, card, folder)


def _push(folder: Path, args: argparse.Namespace) -> int:
    from alice_app.hub import push_folder

    try:
        url = push_folder(folder, args.repo_id, repo_type=args.repo_type, private=args.private)
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"pushed {folder} to {url}", file=sys.stderr)
    return 0


def _folder(services: Any, args: argparse.Namespace) -> Path:
    if "/" not in args.repo_id:
        raise ValueError(f"repo_id must look like user/name, not {args.repo_id!r}")
    return Path(args.out) if args.out else Path(services.settings.data_dir) / "hub" / args.repo_id.split("/")[1]


def _model(services: Any) -> str:
    name = services.settings.model_name
    return EMBEDDED_BASE if services.settings.uses_embedded_model else name
