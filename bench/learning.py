"""Learning benchmark: ALICE's co-evolving feed vs a uniform static dataset, same seed, same steps.

    python bench/learning.py --quick                 # a few steps, to check the pipeline (minutes)
    python bench/learning.py                         # the README's comparison (about 50 min on 2 cores)

Both arms start from the embedded SmolLM2 with a fresh LoRA adapter and a fresh database, train
for the same number of GRPO steps with the same settings and seed, and are evaluated on the same
held-out seeds (greedy, first attempt) before, during (every --eval-every steps) and after. The
arms run as two processes side by side (one CPU thread each), so both see the same machine load.
A third phase times ALICE's trainer (engine reward + feedback into the stores + database callback)
against a bare TRL GRPO loop on the same prompts. Raw numbers go to assets/learning_results.json,
plots to assets/learning_*.png, and a table is printed.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from alice_app.tasks.registry import core_family_names  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ARM_FEEDS = {"alice": "coevolve", "static": "static"}


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="tiny run: 4 steps, 2 held-out tasks per cell")
    parser.add_argument("--steps", type=int, default=100, help="GRPO steps per arm")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--eval-n-per-cell", type=int, default=8, help="held-out tasks per cell, before/after")
    parser.add_argument("--curve-n-per-cell", type=int, default=3, help="held-out tasks per cell, during")
    parser.add_argument("--eval-every", type=int, default=20, help="steps between evaluations during training")
    parser.add_argument("--overhead-steps", type=int, default=4, help="steps per side of the step-time comparison")
    parser.add_argument("--families", nargs="+", default=None,
                        help="train and evaluate these families only (default: the core families + plain_arithmetic)")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE", dest="overrides",
                        help="a TrainConfig setting shared by both arms, e.g. --set learning_rate=1e-4 (repeatable)")
    parser.add_argument("--out", default=str(ROOT / "assets"), help="where the JSON and PNGs go")
    parser.add_argument("--arm", choices=("alice", "static", "overhead"), help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)  # where a child process writes its arm
    args = parser.parse_args(argv)
    if args.quick:
        args.steps, args.eval_n_per_cell, args.curve_n_per_cell = 4, 2, 1
        args.eval_every, args.overhead_steps = 2, 2
    if min(args.steps, args.eval_n_per_cell, args.curve_n_per_cell, args.eval_every, args.overhead_steps) < 1:
        parser.error("--steps, --eval-n-per-cell, --curve-n-per-cell, --eval-every and --overhead-steps must be >= 1")
    try:
        args.settings = shared_settings(args.overrides, args.families)
    except ValueError as exc:
        parser.error(str(exc))
    return args


def shared_settings(pairs: list[str], families: list[str] | None) -> dict:
    """``FIELD=VALUE`` pairs (values parsed as JSON where they can be) checked against TrainConfig."""
    from alice_app.training.config import TrainConfig

    settings: dict = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"--set takes FIELD=VALUE, not {pair!r}")
        try:
            settings[name.strip()] = json.loads(text)
        except json.JSONDecodeError:
            settings[name.strip()] = text
    if families:
        settings["families"] = families
    reserved = sorted(set(settings) & {"feed", "steps", "seed", "eval_n_per_cell", "checkpoint_every"})
    if reserved:
        raise ValueError(f"set these with the bench's own flags, not --set: {', '.join(reserved)}")
    TrainConfig.from_dict(settings)  # unknown names and bad values fail here, before anything loads
    return settings


def child_command(args: argparse.Namespace, arm: str, result: Path) -> list[str]:
    return [sys.executable, __file__, "--arm", arm, "--result", str(result), "--steps", str(args.steps),
            "--seed", str(args.seed), "--eval-n-per-cell", str(args.eval_n_per_cell),
            "--curve-n-per-cell", str(args.curve_n_per_cell), "--eval-every", str(args.eval_every),
            "--overhead-steps", str(args.overhead_steps)] + [f"--set={pair}" for pair in args.overrides] + (
            ["--families", *args.families] if args.families else [])


def run_children(args: argparse.Namespace, arms: list[str], folder: Path) -> dict[str, dict]:
    """Run ``arms`` as parallel processes (one thread each) and collect their JSON results."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}
    procs = {arm: subprocess.Popen(child_command(args, arm, folder / f"{arm}.json"), env=env) for arm in arms}
    failed = [arm for arm, proc in procs.items() if proc.wait() != 0]
    if failed:
        raise SystemExit(f"benchmark arm(s) failed: {', '.join(failed)} (see the output above)")
    return {arm: json.loads((folder / f"{arm}.json").read_text()) for arm in arms}


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.arm:  # a child process: one arm, result as JSON
        import torch

        torch.set_num_threads(1)
        from alice_app.training.experiment import run_arm, run_overhead

        if args.arm == "overhead":
            result = run_overhead(args.overhead_steps, args.seed, args.settings)
        else:
            result = run_arm(ARM_FEEDS[args.arm], args.steps, args.seed, args.eval_n_per_cell,
                             args.curve_n_per_cell, args.eval_every, args.settings)
        Path(args.result).write_text(json.dumps(result))
        return 0
    started = time.time()
    with tempfile.TemporaryDirectory(prefix="alice-bench-") as tmp:
        arms = run_children(args, ["alice", "static"], Path(tmp))
        arms.update(run_children(args, ["overhead"], Path(tmp)))
    summary = summarize(arms, args)
    summary["wall_seconds"] = round(time.time() - started, 1)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "learning_results.json").write_text(json.dumps(summary, indent=2))
    write_plots(summary, out)
    (out / "learning_table.md").write_text(markdown_table(summary))
    print_table(summary)
    print(f"\nraw numbers: {out / 'learning_results.json'}; README table: {out / 'learning_table.md'}; "
          f"plots: {out}/learning_*.png")
    return 0


# -- summary ---------------------------------------------------------------------------------
def mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def table_mean(table: dict, families=None) -> float | None:
    return mean(acc for family, row in table.items() if families is None or family in families
                for acc in row.values())


def curve(arm: dict) -> list[tuple[int, dict]]:
    """(step, table): before at step 0, the evaluations during training, after at the last step."""
    last = arm["config"]["steps"]
    return [(0, arm["before"])] + [(p["step"], p["table"]) for p in arm["curve"]] + [(last, arm["after"])]


def first_step(points, predicate) -> int | None:
    return next((step for step, table in points if predicate(table)), None)


def summarize_arm(arm: dict) -> dict:
    core = [f for f in core_family_names() if f in arm["after"]]
    negation = lambda t: table_mean(t, ["negation_arithmetic"])  # noqa: E731
    metrics = arm["metrics"]
    return {
        "before": arm["before"], "after": arm["after"],
        "core_mean_before": table_mean(arm["before"], core), "core_mean_after": table_mean(arm["after"], core),
        "mean_before": table_mean(arm["before"]), "mean_after": table_mean(arm["after"]),
        "steps_to_50pct_negation": first_step(curve(arm), lambda t: (negation(t) or 0) >= 0.5),
        "mean_frac_reward_zero_std": mean(m.get("frac_reward_zero_std") for m in metrics),
        "mean_step_seconds": mean(m.get("step_time") for m in metrics),
        "curve": [{"step": s, "mean": table_mean(t), "negation_arithmetic": t.get("negation_arithmetic")}
                  for s, t in curve(arm)],
        "per_step": [{k: m.get(k) for k in ("step", "reward", "accuracy", "frac_reward_zero_std", "step_time")}
                     for m in metrics],
        "final_levels": arm["final_levels"], "banked_failures": arm["banked_failures"],
        "train_seconds": arm["train_seconds"],
    }


def summarize(arms: dict, args: argparse.Namespace) -> dict:
    alice, static = summarize_arm(arms["alice"]), summarize_arm(arms["static"])
    target = static["mean_after"]
    # Only meaningful when the static arm improved at all; otherwise step 0 would "reach" it.
    improved = target is not None and target > (static["mean_before"] or 0)
    reach = first_step(curve(arms["alice"]), lambda t: (table_mean(t) or 0) >= target) if improved else None
    return {
        "steps_per_arm": args.steps, "seed": args.seed, "eval_n_per_cell": args.eval_n_per_cell,
        "curve_n_per_cell": args.curve_n_per_cell, "eval_every": args.eval_every, "quick": args.quick,
        "shared_settings": args.settings, "config": arms["alice"]["config"],
        "alice": alice, "static": static, "overhead": arms["overhead"],
        "alice_steps_to_static_final_mean": reach,
        "alice_steps_to_static_final_mean_fraction": None if reach is None else reach / args.steps,
        "zero_std_ratio": _ratio(alice["mean_frac_reward_zero_std"], static["mean_frac_reward_zero_std"]),
    }


def _ratio(a, b):
    return None if a is None or not b else a / b


# -- output ----------------------------------------------------------------------------------
def fmt(value, spec=".2f") -> str:
    return "n/a" if value is None else format(value, spec)


def print_table(summary: dict) -> None:
    alice, static = summary["alice"], summary["static"]
    print(f"\nlearning benchmark: {summary['steps_per_arm']} GRPO steps per arm, seed {summary['seed']}, "
          f"{summary['eval_n_per_cell']} held-out tasks per cell\n")
    print(f"{'family':26} {'level':7} {'before':>7} {'ALICE':>7} {'static':>7}")
    for family, row in alice["before"].items():
        for level, before in row.items():
            print(f"{family:26} {level:7} {before:7.2f} {alice['after'][family][level]:7.2f} "
                  f"{static['after'][family][level]:7.2f}")
    rows = [("core-family mean", "core_mean_after", ".3f"), ("all-family mean", "mean_after", ".3f"),
            ("steps to 50% negation_arithmetic", "steps_to_50pct_negation", "d"),
            ("mean frac_reward_zero_std", "mean_frac_reward_zero_std", ".3f"),
            ("mean step seconds", "mean_step_seconds", ".2f")]
    print(f"\n{'':34} {'ALICE':>8} {'static':>8}   (before: core {fmt(alice['core_mean_before'], '.3f')})")
    for label, key, spec in rows:
        print(f"{label:34} {fmt(alice[key], spec):>8} {fmt(static[key], spec):>8}")
    over = summary["overhead"]
    print(f"\nALICE steps to the static arm's final mean: {fmt(summary['alice_steps_to_static_final_mean'], 'd')} "
          f"({fmt(summary['alice_steps_to_static_final_mean_fraction'])} of the budget)")
    print(f"zero-std ratio (ALICE/static): {fmt(summary['zero_std_ratio'])}")
    print(f"step-time ratio (ALICE trainer / bare TRL GRPO, same prompts): {fmt(over['ratio'], '.3f')} "
          f"(median {over['median_alice']:.2f}s vs {over['median_bare']:.2f}s, "
          f"+{over['feed_draw_seconds'] * 1000:.1f} ms per live feed draw)")


def markdown_table(summary: dict) -> str:
    """The README's table: per-family before/after for both arms, then the headline figures."""
    alice, static, steps = summary["alice"], summary["static"], summary["steps_per_arm"]
    levels = lambda table, family: " / ".join(f"{v:.2f}" for v in table[family].values())  # noqa: E731
    lines = [f"| held-out accuracy (easy / medium / hard) | before | ALICE feed, {steps} steps | "
             f"static feed, {steps} steps |", "|---|---|---|---|"]
    for family in alice["before"]:
        lines.append(f"| {family} | {levels(alice['before'], family)} | {levels(alice['after'], family)} | "
                     f"{levels(static['after'], family)} |")
    over = summary["overhead"]
    rows = [
        ("core-family mean", fmt(alice["core_mean_before"], ".3f"), fmt(alice["core_mean_after"], ".3f"),
         fmt(static["core_mean_after"], ".3f")),
        ("all-family mean", fmt(alice["mean_before"], ".3f"), fmt(alice["mean_after"], ".3f"),
         fmt(static["mean_after"], ".3f")),
        ("steps to 50 % on negation_arithmetic (mean of levels)", "–", fmt(alice["steps_to_50pct_negation"], "d"),
         fmt(static["steps_to_50pct_negation"], "d")),
        ("steps for ALICE to reach the static arm's final mean", "–",
         f"{fmt(summary['alice_steps_to_static_final_mean'], 'd')} "
         f"({fmt(summary['alice_steps_to_static_final_mean_fraction'])} of the budget)", "–"),
        ("mean `frac_reward_zero_std`", "–", fmt(alice["mean_frac_reward_zero_std"], ".3f"),
         f"{fmt(static['mean_frac_reward_zero_std'], '.3f')} (ratio {fmt(summary['zero_std_ratio'])})"),
        ("minutes in GRPO steps / mean step (s), one CPU thread per arm", "–",
         f"{step_minutes(alice):.1f} / {fmt(alice['mean_step_seconds'])}",
         f"{step_minutes(static):.1f} / {fmt(static['mean_step_seconds'])}"),
        ("step time vs a bare TRL GRPO loop, same prompts", "–", f"{fmt(over['ratio'], '.2f')}×", "–"),
    ]
    lines += [f"| {label} | {before} | {a} | {b} |" for label, before, a, b in rows]
    return "\n".join(lines) + "\n"


def step_minutes(arm: dict) -> float:
    """Time spent inside GRPO steps (evaluations excluded)."""
    return sum(m["step_time"] or 0.0 for m in arm["per_step"]) / 60


def write_plots(summary: dict, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    arms = {"ALICE (co-evolving feed)": summary["alice"], "static uniform dataset": summary["static"]}
    budget = f" — {summary['steps_per_arm']} GRPO steps per arm, seed {summary['seed']}"
    fig, ax = plt.subplots(figsize=(7, 4))
    for label, arm in arms.items():
        steps = [p["step"] for p in arm["curve"]]
        ax.plot(steps, [p["mean"] for p in arm["curve"]], marker="o", label=f"{label}: all families")
        neg = [mean((p["negation_arithmetic"] or {}).values()) for p in arm["curve"]]
        ax.plot(steps, neg, marker="x", linestyle="--", label=f"{label}: negation_arithmetic")
    _finish(ax, "GRPO step", "held-out accuracy", "Held-out accuracy during training" + budget, fig,
            out / "learning_curves.png")
    fig, ax = plt.subplots(figsize=(7, 4))
    for label, arm in arms.items():
        ax.plot([m["step"] for m in arm["per_step"]], _rolling([m["frac_reward_zero_std"] for m in arm["per_step"]]),
                label=label)
    _finish(ax, "GRPO step", "frac_reward_zero_std (rolling mean of 5)", "Groups that teach nothing" + budget, fig,
            out / "learning_zero_std.png")
    families = list(summary["alice"]["before"])
    fig, ax = plt.subplots(figsize=(9, 4))
    width = 0.27
    for offset, (label, values) in enumerate([
            ("before", [mean(summary["alice"]["before"][f].values()) for f in families]),
            ("ALICE after", [mean(summary["alice"]["after"][f].values()) for f in families]),
            ("static after", [mean(summary["static"]["after"][f].values()) for f in families])]):
        ax.bar([i + (offset - 1) * width for i in range(len(families))], values, width, label=label)
    ax.set_xticks(range(len(families)), families, rotation=20, ha="right", fontsize=8)
    _finish(ax, "", "held-out accuracy (mean of levels)", "Before and after, per family" + budget, fig,
            out / "learning_before_after.png")


def _rolling(values, window=5):
    values = [v if v is not None else 0.0 for v in values]
    return [sum(values[max(0, i - window + 1): i + 1]) / len(values[max(0, i - window + 1): i + 1])
            for i in range(len(values))]


def _finish(ax, xlabel, ylabel, title, fig, path) -> None:
    import matplotlib.pyplot as plt

    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
