"""The learning bench's plots: mean over seeds with min–max bands (bench/learning_report.py's summary)."""
from __future__ import annotations

from pathlib import Path

from alice_app.evaluation import headline_penalties
from bench.learning_report import cell_means, mean

LABELS = {"alice": "ALICE (co-evolving feed)", "static": "static uniform dataset"}


def _band(ax, steps, runs, label, style="-"):
    """Mean line and min–max band of ``runs`` (one list of values per seed, same steps)."""
    columns = list(zip(*runs))
    means = [mean(c) for c in columns]
    lows = [min((v for v in c if v is not None), default=None) for c in columns]
    highs = [max((v for v in c if v is not None), default=None) for c in columns]
    line, = ax.plot(steps, means, style, marker="o", markersize=3, label=label)
    if len(runs) > 1 and None not in lows:
        ax.fill_between(steps, lows, highs, alpha=0.2, color=line.get_color())


def _curves(summary: dict, arm: str, key: str) -> tuple[list[int], list[list]]:
    seeds = list(summary["per_seed"].values())
    steps = [p["step"] for p in seeds[0]["curves"][arm]]
    return steps, [[p[key] for p in s["curves"][arm]] for s in seeds]


def write_plots(summary: dict, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    seeds = summary["seeds"]
    budget = f" — {summary['steps_per_arm']} steps per arm, seed{'s' if len(seeds) > 1 else ''} " \
             f"{', '.join(map(str, seeds))}"
    for key, name, ylabel, title in [
            ("penalty", "learning_penalty.png", "distraction penalty (control − family)",
             "Distraction penalty, core families × easy/medium"),
            ("accuracy", "learning_curves.png", "held-out accuracy (all cells)", "Held-out accuracy")]:
        fig, ax = plt.subplots(figsize=(7, 4))
        for arm in LABELS:
            _band(ax, *_curves(summary, arm, key), LABELS[arm])
        _finish(ax, "GRPO step", ylabel, title + budget, fig, out / name)

    fig, ax = plt.subplots(figsize=(7, 4))
    for arm in LABELS:
        runs = [_rolling([m.get("frac_outcome_uniform") or 0.0 for m in s["per_step"][arm]])
                for s in summary["per_seed"].values()]
        _band(ax, list(range(1, len(runs[0]) + 1)), runs, LABELS[arm])
    _finish(ax, "GRPO step", "groups all right or all wrong (rolling mean of 5)", "Groups that teach nothing" + budget,
            fig, out / "learning_zero_std.png")

    penalty = {label: cell_means(summary, arm, when, "penalty") for label, (arm, when) in
               {"before": ("alice", "before"), "ALICE after": ("alice", "after"),
                "static after": ("static", "after")}.items()}
    families = list(penalty["before"])
    fig, ax = plt.subplots(figsize=(8, 4))
    width = 0.27
    for offset, (label, table) in enumerate(penalty.items()):
        values = [headline_penalties(table).get(f) for f in families]
        ax.bar([i + (offset - 1) * width for i in range(len(families))], values, width, label=label)
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.set_xticks(range(len(families)), families, rotation=20, ha="right", fontsize=8)
    _finish(ax, "", "penalty, mean of easy/medium", "Distraction penalty per family" + budget, fig,
            out / "learning_before_after.png")
    _repair_plot(summary, out / "learning_repair.png", budget, plt)


def _repair_plot(summary: dict, path: Path, budget: str, plt) -> None:
    """The repair loop: banked failures solved, repairs, turn 1 vs turn 5, the paraphrase set."""
    agg = summary["aggregate"]
    bars = [("banked solved", "banked_solved", "banked_solved"), ("repaired (variants)", "repaired_share", "repaired_share"),
            ("turn 1 solve", "turn1_before", "turn1_after"), ("by turn 5", "by_turn5_before", "by_turn5_after"),
            ("paraphrases correct", "paraphrase_correct_before", "paraphrase_correct_after"),
            ("paraphrase echoes", "paraphrase_echo_before", "paraphrase_echo_after")]
    series = {"before training": [None if b == a else agg["alice"][b]["mean"] for _, b, a in bars],
              "ALICE after": [agg["alice"][a]["mean"] for _, _, a in bars],
              "static after": [agg["static"][a]["mean"] for _, _, a in bars]}
    errors = {"ALICE after": [agg["alice"][a] for _, _, a in bars], "static after": [agg["static"][a] for _, _, a in bars]}
    fig, ax = plt.subplots(figsize=(9, 4))
    width = 0.27
    for offset, (label, values) in enumerate(series.items()):
        xs = [i + (offset - 1) * width for i in range(len(bars))]
        heights = [v or 0.0 for v in values]
        yerr = None
        if label in errors and len(summary["seeds"]) > 1:
            yerr = [[max(0.0, (s["mean"] or 0) - (s["min"] or 0)) for s in errors[label]],
                    [max(0.0, (s["max"] or 0) - (s["mean"] or 0)) for s in errors[label]]]
        ax.bar(xs, heights, width, label=label, yerr=yerr, capsize=2)
    ax.set_xticks(range(len(bars)), [b[0] for b in bars], rotation=15, ha="right", fontsize=8)
    ax.set_ylim(0, 1)
    _finish(ax, "", "share", "Repair loop: banked failures, turns, paraphrases" + budget, fig, path)


def _rolling(values, window=5):
    values = [v if v is not None else 0.0 for v in values]
    return [sum(values[max(0, i - window + 1): i + 1]) / len(values[max(0, i - window + 1): i + 1])
            for i in range(len(values))]


def _finish(ax, xlabel, ylabel, title, fig, path) -> None:
    import matplotlib.pyplot as plt

    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
