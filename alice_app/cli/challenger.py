"""Challenger commands: `coevolve` (challenger and solver GRPO phases in turn) and `duel`.

    python -m alice_app coevolve --rounds 2
    python -m alice_app coevolve --rounds 1 --challenger-warm-start 64 --num-generations 8
    python -m alice_app duel --a embedded --b data/runs/coevolve-1/round-1/solver/adapter --budget 8

A duel side is ``embedded`` (the configured model), a PEFT adapter folder on it, or (with
API_BASE_URL) an endpoint model id.
"""
from __future__ import annotations

import json
import time
from typing import Any

from alice_app.challenger.coevolve import CoevolveConfig
from alice_app.cli.hunt import format_table, open_services
from alice_app.cli.recipe import add_dataclass_flags, config_from_args


def register(subparsers) -> None:
    co = subparsers.add_parser(
        "coevolve", help="alternate challenger and solver GRPO phases (own LoRA adapters)",
        description="Every CoevolveConfig setting is a flag (from the dataclass, as for train) and a key of a "
                    "--config YAML file; flags override the file.")
    co.add_argument("--config", metavar="RECIPE.yaml", help="YAML file of CoevolveConfig settings")
    co.add_argument("--db", help="SQLite database (default: ALICE_DB or data/alice.db)")
    co.add_argument("--json", action="store_true", help="print the rounds' figures as JSON")
    add_dataclass_flags(co, CoevolveConfig)
    co.set_defaults(func=run_coevolve_command)

    duel = subparsers.add_parser("duel", help="two models, each the other's challenger: failure maps")
    duel.add_argument("--a", required=True, help="model A: embedded, an adapter folder, or an endpoint model id")
    duel.add_argument("--b", required=True, help="model B (same forms)")
    duel.add_argument("--budget", type=int, default=8, help="proposals each side writes against the other")
    duel.add_argument("--k", type=int, default=4, help="samples per filled task")
    duel.add_argument("--seed", type=int, default=0,
                      help="seeds the prompts, the fills and a local challenger's sampling")
    duel.add_argument("--db", help="SQLite database (default: ALICE_DB or data/alice.db)")
    duel.add_argument("--json", action="store_true", help="print the duel as JSON")
    duel.set_defaults(func=run_duel_command)


def run_coevolve_command(args) -> int:
    from alice_app.challenger.coevolve import run_coevolve
    from alice_app.cli.hunt import _model_errors

    config = config_from_args(args, CoevolveConfig, args.config)  # validated before any model loads
    services = open_services(args.db)
    try:
        output = services.settings.runs_dir / f"coevolve-{int(time.time())}"
        with _model_errors():
            result = run_coevolve(services, config, output,
                                  on_round=None if args.json else lambda r: print(_round_line(r), flush=True))
    finally:
        services.close()
    if args.json:
        print(json.dumps(result, indent=2, default=str))
        return 0
    print(f"\nrun {result['run_id']}: adapters under {output}\n")
    print(format_table([{"round": r["round"], **{k: r["challenger"][k] for k in
                                                 ("validity_rate", "novelty_rate", "zone_rate", "mean_reward")},
                         "challenger_tasks": r["challenger_tasks"], "solver_pass": r.get("solver_train_pass_rate")}
                        for r in result["rounds"]]))
    return 0


def _round_line(figures: dict) -> str:
    c = figures["challenger"]
    return (f"round {figures['round']}: {c['proposals']} proposals, valid {c['validity_rate']:.2f}, novel "
            f"{c['novelty_rate']:.2f}, in zone {c['zone_rate']:.2f}, rejections {c['rejections']}; "
            f"{figures['solver_note']}")


def run_duel_command(args) -> int:
    from alice_app.challenger.duel import run_duel
    from alice_app.cli.hunt import _model_errors

    if args.budget < 1 or args.k < 1:
        raise ValueError("--budget and --k must be at least 1")
    services = open_services(args.db)
    try:
        with _model_errors():
            result = run_duel(services, args.a, args.b, budget=args.budget, k=args.k, seed=args.seed)
    finally:
        services.close()
    print(json.dumps(result, indent=2, default=str) if args.json else format_duel(result))
    return 0


def format_duel(result: dict[str, Any]) -> str:
    lines = []
    for name, side in result["sides"].items():
        p = side["proposals"]
        lines.append(f"\n{name} = {side['model']}: wrote {p['proposals']} proposals, {p['novelty_rate']:.0%} valid "
                     f"and novel; rejections {p['rejections']}; found {len(side['found_against_opponent'])} "
                     f"template(s) the opponent passes at most half the time")
        lines.append(f"failure map of {name} (k={result['k']} samples per task):")
        lines.append(format_table([{"source": r["source"], "op": r["op"], "pass_rate": r["pass_rate"], "n": r["n"],
                                    "modes": ", ".join(f"{m} {c}" for m, c in sorted(r["modes"].items())) or "-",
                                    "template": r["template"]} for r in side["failure_map"]], clip=60))
    lines += [f"note: {n}" for n in result["notes"]]
    return "\n".join(lines)
