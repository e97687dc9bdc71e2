"""Learning benchmark: ALICE's co-evolving feed vs a uniform static dataset, same seeds, same steps.

    python bench/learning.py --quick                              # minutes: checks the pipeline
    python bench/learning.py --seeds 3                            # the issue's benchmark (hours on 2 cores)
    python bench/learning.py --families negation_arithmetic plain_arithmetic --steps 30 \\
        --set learning_rate=3e-4 --set num_generations=8 --set prompts_per_step=1
    python bench/learning.py --config examples/recipes/negation_repair.yaml --steps 45   # a recipe's settings

For each seed both arms start from the embedded SmolLM2 with a fresh LoRA adapter and a fresh
database and run side by side (one process and one CPU thread each). Each arm: a pre-training hunt
banks failures; held-out evaluation (greedy, first attempt) of every family AND its control twin
(the distraction penalty = control − family accuracy), the shortcut shares and the hand-written
paraphrase set (bench/data); GRPO training with evaluations every --eval-every steps; then the
same measurements, and the pre-training hunt's exact tasks replayed. A last phase times ALICE's
trainer against a bare TRL GRPO loop. Raw numbers: assets/learning_results.json; plots
assets/learning_*.png (mean over seeds, min–max bands); the README table: assets/learning_table.md.
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# Each arm's own settings on top of the shared ones. "episode" is ALICE's feed trained on the final
# attempt of 5-turn episodes (self-correction): an optional arm, for turn 1 vs by turn 5.
ARM_SETTINGS = {"alice": {"feed": "coevolve"}, "static": {"feed": "static"},
                "episode": {"feed": "coevolve", "mode": "episode"}}
# TrainConfig fields the bench sets itself (--arms, --steps, --seed, --eval-n-per-cell; checkpoints are not kept).
BENCH_FLAGS = frozenset({"feed", "mode", "steps", "seed", "eval_n_per_cell", "checkpoint_every"})
CONTROL_FAMILIES = ("plain_arithmetic",)  # controls themselves: trained and evaluated, no twin of their own


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="tiny run: 3 steps, 2 held-out tasks per cell, 6 hunt episodes")
    parser.add_argument("--steps", type=int, default=100, help="GRPO steps per arm and seed")
    parser.add_argument("--seed", type=int, default=0, help="the first seed")
    parser.add_argument("--seeds", type=int, default=1, help="how many seeds (seed, seed+1, ...); figures give mean and min-max")
    parser.add_argument("--eval-n-per-cell", type=int, default=20, help="held-out tasks per cell, before/after")
    parser.add_argument("--curve-n-per-cell", type=int, default=3, help="held-out tasks per cell, during")
    parser.add_argument("--eval-every", type=int, default=20, help="steps between evaluations during training")
    parser.add_argument("--hunt-episodes", type=int, default=200, help="episodes of the pre-training hunt")
    parser.add_argument("--bank-after-warm-start", action="store_true",
                        help="play the hunt again after the warm start, before GRPO step 1, and count the repair "
                             "figures (exact banked tasks, fresh variants, recheck) on its failures: what the steps "
                             "repair of a model that already solves much (needs a warm start)")
    parser.add_argument("--paraphrases", type=int, default=0, help="score N paraphrases spread over the set (0: all)")
    parser.add_argument("--overhead-steps", type=int, default=4,
                        help="steps per side of the step-time comparison (0 skips it)")
    parser.add_argument("--families", nargs="+", default=None,
                        help="train and evaluate these families only (default: the core families + plain_arithmetic)")
    parser.add_argument("--config", metavar="RECIPE.yaml",
                        help="TrainConfig settings shared by both arms from a recipe (examples/recipes/*.yaml, the "
                             "train command's --config files); its keys the bench sets with its own flags ("
                             f"{', '.join(sorted(BENCH_FLAGS))}) are left out, --set goes on top")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE", dest="overrides",
                        help="a TrainConfig setting shared by both arms, e.g. --set learning_rate=1e-4 (repeatable)")
    parser.add_argument("--arms", nargs="+", choices=list(ARM_SETTINGS), default=["alice", "static"],
                        help="arms to train per seed: alice (co-evolving feed), static (uniform dataset), episode "
                             "(ALICE's feed, GRPO on the 5-turn episode's final attempt); the summary needs alice "
                             "and static for every seed, which --from-raw can take from an earlier run")
    parser.add_argument("--out", default=str(ROOT / "assets"), help="where the JSON and PNGs go")
    parser.add_argument("--from-raw", metavar="RAW.json[:ARM,...]", nargs="+",
                        help="no training: summarize the arms saved by earlier runs (their learning_raw.json; "
                             "several runs of the same settings and different seeds are summarized together); "
                             "RAW.json:static keeps only that file's static arms (e.g. to set a changed ALICE "
                             "feed beside an earlier run's static baseline)")
    parser.add_argument("--arm", choices=(*ARM_SETTINGS, "overhead"), help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)  # where a child process writes its arm
    args = parser.parse_args(argv)
    if args.quick:
        args.steps, args.eval_n_per_cell, args.curve_n_per_cell = 3, 2, 1
        args.eval_every, args.overhead_steps, args.hunt_episodes, args.paraphrases = 2, 2, 6, 12
    sizes = (args.steps, args.seeds, args.eval_n_per_cell, args.curve_n_per_cell, args.eval_every, args.hunt_episodes)
    if min(sizes) < 1 or min(args.paraphrases, args.overhead_steps) < 0:
        parser.error("--steps, --seeds, --eval-n-per-cell, --curve-n-per-cell, --eval-every and --hunt-episodes "
                     "must be >= 1, --paraphrases and --overhead-steps >= 0")
    try:
        from alice_app.types import check_seed

        check_seed(args.seed)
        check_seed(args.seed + args.seeds - 1)
        args.settings = shared_settings(args.overrides, args.families, args.config)
        check_families(args.settings.get("families"))
        if args.quick:  # a pipeline check: a warm start of two tasks and two repairs (not 384 and 192), short completions
            args.settings.setdefault("warm_start_prompts", 2)
            args.settings.setdefault("max_completion_length", 32)
            args.settings.setdefault("warm_start_repairs", 2)
        check_arms(args.arms, args.settings, args.bank_after_warm_start)
    except ValueError as exc:
        parser.error(str(exc))
    return args


def check_families(families: list[str] | None) -> None:
    """Every benchmarked family needs a control twin (the penalty is the headline), or be a control."""
    from alice_app.tasks import get_family, has_control

    for name in families or ():
        get_family(name)
        if not has_control(name) and name not in CONTROL_FAMILIES:
            raise ValueError(f"family {name!r} has no control twin, so its distraction penalty cannot be measured")


def shared_settings(pairs: list[str], families: list[str] | None, recipe: str | None = None) -> dict:
    """The settings both arms share, checked against TrainConfig: ``recipe``'s (less the keys the bench sets with
    its own flags), then the ``FIELD=VALUE`` pairs (values parsed as JSON where they can be), then ``families``."""
    from alice_app.training.config import TrainConfig
    from alice_app.training.recipes import load_recipe

    given: dict = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"--set takes FIELD=VALUE, not {pair!r}")
        try:
            given[name.strip()] = json.loads(text)
        except json.JSONDecodeError:
            given[name.strip()] = text
    reserved = sorted(set(given) & BENCH_FLAGS)
    if reserved:
        raise ValueError(f"set these with the bench's own flags (--arms, --steps, ...), not --set: {', '.join(reserved)}")
    from_recipe = {name: v for name, v in (load_recipe(recipe) if recipe else {}).items() if name not in BENCH_FLAGS}
    settings = {**from_recipe, **given, **({"families": families} if families else {})}
    TrainConfig.from_dict(settings)  # unknown names and bad values fail here, before anything loads
    return settings


def check_arms(arms: list[str], settings: dict, bank_after_warm_start: bool = False) -> None:
    """Every arm's full settings are valid before anything loads (e.g. the episode arm with its feed), and
    each has the warm start that ``bank_after_warm_start`` hunts after."""
    from alice_app.training.config import TrainConfig
    from bench.experiment import check_banking

    for arm in dict.fromkeys(arms):
        try:
            check_banking(TrainConfig.from_dict({**settings, **ARM_SETTINGS[arm]}), bank_after_warm_start)
        except ValueError as exc:
            raise ValueError(f"arm {arm}: {exc}") from None


def child_command(args: argparse.Namespace, arm: str, seed: int, result: Path) -> list[str]:
    return [sys.executable, __file__, "--arm", arm, "--result", str(result), "--steps", str(args.steps),
            "--seed", str(seed), "--eval-n-per-cell", str(args.eval_n_per_cell),
            "--curve-n-per-cell", str(args.curve_n_per_cell), "--eval-every", str(args.eval_every),
            "--hunt-episodes", str(args.hunt_episodes), "--paraphrases", str(args.paraphrases), "--overhead-steps", str(args.overhead_steps)] + (
            ["--bank-after-warm-start"] if args.bank_after_warm_start else []) + [
            f"--set={pair}" for pair in args.overrides] + (["--families", *args.families] if args.families else []) + (
            ["--config", args.config] if args.config else []) + (["--quick"] if args.quick else [])  # its tiny warm start


def run_children(args: argparse.Namespace, arms: list[str], seed: int, folder: Path) -> dict[str, dict]:
    """Run ``arms`` as parallel processes (one thread each) and collect their JSON results."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}
    paths = {arm: folder / f"{arm}-{seed}.json" for arm in arms}
    procs = {arm: subprocess.Popen(child_command(args, arm, seed, paths[arm]), env=env) for arm in arms}
    failed = [arm for arm, proc in procs.items() if proc.wait() != 0]
    if failed:
        raise SystemExit(f"benchmark arm(s) failed: {', '.join(failed)} (see the output above)")
    return {arm: json.loads(paths[arm].read_text()) for arm in arms}


def run_child(args: argparse.Namespace) -> int:
    import torch

    torch.set_num_threads(1)
    from bench.experiment import run_arm, run_overhead

    if args.arm == "overhead":
        result = run_overhead(args.overhead_steps, args.seed, args.settings)
    else:
        extra = {k: v for k, v in ARM_SETTINGS[args.arm].items() if k != "feed"}
        result = run_arm(ARM_SETTINGS[args.arm]["feed"], args.steps, args.seed, args.eval_n_per_cell,
                         args.curve_n_per_cell, args.eval_every, {**args.settings, **extra},
                         hunt_episodes=args.hunt_episodes,
                         paraphrases=args.paraphrases or None, bank_after_warm_start=args.bank_after_warm_start)
    Path(args.result).write_text(json.dumps(result))
    return 0


def load_raw(spec: str) -> dict:
    """A saved raw run, ``path`` or ``path:arm,arm`` (only those arms kept)."""
    from bench.learning_report import select_arms

    path, _, arms = spec.rpartition(":") if ":" in Path(spec).name else (spec, "", "")
    raw = json.loads(Path(path).read_text())
    return select_arms(raw, arms.split(","), path) if arms else raw


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.arm:  # a child process: one arm, result as JSON
        return run_child(args)
    from bench.learning_plots import write_plots
    from bench.learning_report import markdown_table, merge_raws, missing_arms, print_table, run_meta, summarize

    started = time.time()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.from_raw:
        try:
            raw = merge_raws([load_raw(spec) for spec in args.from_raw])
        except (OSError, ValueError) as exc:
            raise SystemExit(f"--from-raw: {exc}") from None
        if len(args.from_raw) > 1:
            (out / "learning_raw.json").write_text(json.dumps(raw))  # the merged run, to keep with the history
    else:
        raw = {"meta": run_meta(args), "runs": {}, "overhead": None}
        with tempfile.TemporaryDirectory(prefix="alice-bench-") as tmp:
            for seed in range(args.seed, args.seed + args.seeds):
                raw["runs"][str(seed)] = run_children(args, list(dict.fromkeys(args.arms)), seed, Path(tmp))
                (out / "learning_raw.json").write_text(json.dumps(raw))  # kept: --from-raw re-summarizes
            if args.overhead_steps:
                raw["overhead"] = run_children(args, ["overhead"], args.seed, Path(tmp))["overhead"]
        raw["wall_seconds"] = round(time.time() - started, 1)
        (out / "learning_raw.json").write_text(json.dumps(raw))
    missing = sorted({arm for arms in raw["runs"].values() for arm in missing_arms(arms)})
    if missing:  # e.g. an episode arm alone: kept, to be summarized with the run that has the others
        (out / "learning_raw.json").write_text(json.dumps(raw))
        print(f"\nno summary: this run lacks the {' and '.join(missing)} arm; its raw arms are in "
              f"{out / 'learning_raw.json'}. Summarize them with an earlier run of the same settings: "
              f"python bench/learning.py --from-raw EARLIER_RAW.json {out / 'learning_raw.json'}")
        return 0
    summary = summarize(raw["runs"], raw["overhead"], raw["meta"])
    summary["wall_seconds"] = raw.get("wall_seconds")
    (out / "learning_results.json").write_text(json.dumps(summary, indent=2))
    write_plots(summary, out)
    (out / "learning_table.md").write_text(markdown_table(summary))
    print_table(summary)
    print(f"\nraw numbers: {out / 'learning_results.json'}; README table: {out / 'learning_table.md'}; "
          f"plots: {out}/learning_*.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
