"""One arm of several learning-bench runs side by side: what a change of settings did to that arm.

    python bench/compare_runs.py OLD_RAW.json:alice=run8 NEW_RAW.json:alice=run9 [NEW_RAW.json:static ...]

Each ``RAW.json:ARM[=LABEL]`` is an arm of a raw run (``learning_raw.json``, or a merged one from
``--from-raw``); every figure of ``learning_report.arm_figures`` is shown as the mean and min–max
over that run's seeds, one column per arm, with the settings that differ between the runs above the
table. ``bench/learning.py --from-raw`` compares ALICE with static under one set of settings; this
compares runs whose settings differ, which it refuses to merge. ``--cells`` adds, per arm, every
family × level cell: held-out accuracy before → after and the distraction penalty before → after
(means over the seeds).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from alice_app.training.rewards import SOURCE_METRICS  # noqa: E402
from bench.learning_report import arm_figures, mean, spread, stats  # noqa: E402

FIGURES = ("penalty_before", "penalty_after", "accuracy_after", "negation_easy", "negation_medium", "negation_hard",
           "control_worst_change", "failed_before", "banked_solved", "repaired_share", "kept_solved", "turn1_after",
           "variants_after", "paraphrase_correct_after",
           "paraphrase_trained_after", "paraphrase_echo_after", "prompt_number_after", "free_accuracy_before",
           "free_accuracy_after", "free_penalty_after",
           "self_contradiction_after", "uniform", "uniform_early", "uniform_late", "uniform_all_wrong",
           "uniform_all_right", "redraws", "uniform_trained", *SOURCE_METRICS, "train_echo", "train_echo_late",
           "replay_examples",
           "completion_tokens", "step_minutes", "warm_start_minutes",
           "step_cpu_minutes", "warm_start_cpu_minutes", "probe_cpu_minutes", "probe_mixed",
           "warm_accuracy", "warm_penalty", "warm_paraphrase_correct", "warm_paraphrase_trained", "warm_paraphrase_echo",
           "warm_turn1", "warm_variants")


def load_seeds(spec: str) -> tuple[str, dict, list[dict]]:
    """(label, settings, the arm's raw measurements, one per seed) of ``path:arm`` or ``path:arm=label``."""
    path, _, arm = spec.rpartition(":")
    arm, _, label = arm.partition("=")
    if not path or not arm:
        raise ValueError(f"{spec!r}: expected RAW.json:ARM or RAW.json:ARM=LABEL")
    raw = json.loads(Path(path).read_text())
    seeds = [arms[arm] for arms in raw["runs"].values() if arm in arms]
    if not seeds:
        raise ValueError(f"{path} has no {arm!r} arm")
    return seeds_label(label or Path(path).stem + ':' + arm, len(seeds)), raw["meta"]["settings"], seeds


def seeds_label(label: str, seeds: int) -> str:
    """``label (3 seeds)``: a column's name with the number of seeds it sums or averages."""
    return f"{label} ({seeds} seed{'s' if seeds != 1 else ''})"


def load_arm(spec: str) -> tuple[str, dict, dict]:
    """(label, settings, {figure: stats over seeds}) of ``path:arm`` or ``path:arm=label``."""
    label, settings, seeds = load_seeds(spec)
    figures = [arm_figures(one) for one in seeds]
    return label, settings, {key: stats([f[key] for f in figures]) for key in FIGURES}


def cells_markdown(label: str, seeds: list[dict]) -> str:
    """Every family × level of one arm: accuracy and penalty, before → after, means over the seeds."""
    def cell(when: str, key: str, family: str, level: str) -> str:
        value = mean(seed[when][key].get(family, {}).get(level) for seed in seeds)
        return "–" if value is None else f"{value:.2f}"

    lines = [f"{label}", "", "| family | level | accuracy before → after | penalty before → after |", "|---|---|---|---|"]
    for family, levels in seeds[0]["before"]["accuracy"].items():
        for level in levels:
            lines.append(f"| {family} | {level} | {cell('before', 'accuracy', family, level)} → "
                         f"{cell('after', 'accuracy', family, level)} | {cell('before', 'penalty', family, level)} → "
                         f"{cell('after', 'penalty', family, level)} |")
    return "\n".join(lines)


def settings_that_differ(settings: list[dict]) -> dict[str, list]:
    names = sorted({name for one in settings for name in one})
    return {name: [one.get(name, "default") for one in settings] for name in names
            if len({json.dumps(one.get(name, "default")) for one in settings}) > 1}


def markdown(arms: list[tuple[str, dict, dict]]) -> str:
    labels = [label for label, _, _ in arms]
    lines = [f"settings that differ: {json.dumps(settings_that_differ([s for _, s, _ in arms]))}", "",
             "| figure | " + " | ".join(labels) + " |", "|---|" + "---|" * len(labels)]
    for key in FIGURES:
        lines.append(f"| {key} | " + " | ".join(spread(summary[key]) for _, _, summary in arms) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("arms", nargs="+", metavar="RAW.json:ARM[=LABEL]")
    parser.add_argument("--cells", action="store_true", help="also every family × level cell of each arm")
    args = parser.parse_args(argv)
    try:
        arms = [load_arm(spec) for spec in args.arms]
        cells = [cells_markdown(label, seeds) for label, _, seeds in map(load_seeds, args.arms)] if args.cells else []
    except (OSError, ValueError, KeyError) as exc:
        raise SystemExit(f"compare_runs: {exc}") from None
    print("\n\n".join([markdown(arms), *cells]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
