"""The paraphrase replies of committed runs, counted per idea: right answers, distractor echoes, a phrase.

    python bench/paraphrase_replies.py RAW.json:alice=run25 WARM_RAW.json=tally [--stage after] [--phrase negations]
    python bench/paraphrase_replies.py WARM_RAW.json --set parity --phrase " < "   # the negation-parity set

Each spec is an arm of a learning-bench raw (``RAW.json:ARM[=LABEL]``, the replies of ``--stage``: before,
warm_start or after; runs before 2026-12-05 kept no warm_start replies) or a ``bench/warm_start.py`` raw
(``RAW.json[=LABEL]``, the replies after its warm start). The stored replies are scored again against the
paraphrase set (``alice_app.prompt_sets.reply_verdicts``, the scoring the benches use), and each idea gets the
counts summed over the run's seeds with each seed's count in brackets; ``--phrase`` adds how many replies
contain that text (e.g. a working line that leaks into other ideas). These are the per-idea counts
docs/training_runs.md quotes ("echoes summed over the three seeds: 25 -> 12"). ``--set parity`` counts the
replies to the hand-written negation-parity set instead (kept by runs from 2026-12-07 on that trained
double_negation), per parity of the negation count.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from alice_app.prompt_sets import replies_in_order, reply_verdicts  # noqa: E402
from bench.compare_runs import load_seeds, seeds_label  # noqa: E402
from bench.paraphrases import PARITY_PATH, load_paraphrases  # noqa: E402

STAGES = ("before", "warm_start", "after")
SETS = {"paraphrases": load_paraphrases, "parity": lambda: load_paraphrases(PARITY_PATH)}
COUNTED = (("right", "correct"), ("echo", "echo_distractor"))


def load_replies(spec: str, stage: str, which: str = "paraphrases") -> tuple[str, list[dict[str, str]]]:
    """(label, one {prompt id: reply} per seed) of a learning raw's arm or a warm-start raw; ``which``: the
    paraphrase set's replies or the negation-parity set's."""
    if ":" in spec:
        label, _, seeds = load_seeds(spec)
        scored = [seed[stage]["paraphrases"] for seed in seeds]
    else:
        path, _, label = spec.partition("=")
        runs = json.loads(Path(path).read_text()).get("runs")
        if not isinstance(runs, list) or not all("replies" in run for run in runs):
            raise ValueError(f"{path}: not a bench/warm_start.py raw (a learning raw needs :ARM)")
        label = seeds_label(label or Path(path).stem, len(runs))
        scored = [{**run["paraphrases"], "replies": run["replies"]} for run in runs]
    if which == "parity":
        scored = [one.get("negation_parity") or {} for one in scored]
    replies = [one.get("replies") for one in scored]
    if any(r is None for r in replies):
        raise ValueError(f"{spec}: the {stage!r} stage kept no {which} replies (runs before 2026-12-05 kept none for "
                         "warm_start; the parity set is asked from 2026-12-07 on, when double_negation is trained)")
    return label, replies


def idea_counts(rows: list[dict], seeds: list[dict[str, str]], phrase: str | None) -> dict[str, dict[str, list[int]]]:
    """{idea (and "all"): {count name: one count per seed}} over ``rows`` (the paraphrase set)."""
    names = [name for name, _ in COUNTED] + ([f'"{phrase}"'] if phrase else [])
    counts: dict[str, dict[str, list[int]]] = {}
    for index, replies in enumerate(seeds):
        for row, reply in zip(rows, replies_in_order(rows, replies)):
            verdicts = reply_verdicts(row, reply)
            seen = [verdicts[key] for _, key in COUNTED] + ([phrase.lower() in reply.lower()] if phrase else [])
            for idea in (row["idea"], "all"):
                per_name = counts.setdefault(idea, {name: [0] * len(seeds) for name in names})
                for name, hit in zip(names, seen):
                    per_name[name][index] += hit
    return counts


def markdown(rows: list[dict], runs: list[tuple[str, dict]], stage: str, phrase: str | None) -> str:
    sizes = {idea: sum(row["idea"] == idea for row in rows) for idea in sorted({row["idea"] for row in rows})}
    sizes["all"] = len(rows)
    lines = [f"paraphrase replies, stage {stage}: counts summed over seeds [each seed]", "",
             "| idea (prompts) | " + " | ".join(label for label, _ in runs) + " |", "|---|" + "---|" * len(runs)]
    for idea, size in sizes.items():
        cells = [" · ".join(f"{name} {sum(values)} {values}" for name, values in counts[idea].items())
                 for _, counts in runs]
        lines.append(f"| {idea} ({size}) | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", metavar="RAW.json[:ARM][=LABEL]")
    parser.add_argument("--stage", choices=STAGES, default="after", help="a learning raw's replies to count")
    parser.add_argument("--phrase", help="also count the replies that contain this text (case-insensitive)")
    parser.add_argument("--set", choices=SETS, default="paraphrases", dest="which",
                        help="the hand-written set whose replies to count")
    args = parser.parse_args(argv)
    rows = SETS[args.which]()
    try:
        runs = [(label, idea_counts(rows, seeds, args.phrase))
                for label, seeds in (load_replies(spec, args.stage, args.which) for spec in args.runs)]
    except (OSError, ValueError, KeyError) as exc:
        raise SystemExit(f"paraphrase_replies: {exc}") from None
    print(markdown(rows, runs, args.stage, args.phrase))
    return 0


if __name__ == "__main__":
    sys.exit(main())
