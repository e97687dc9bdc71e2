"""What answering the named candidate scores on double_negation: the shortcut its held-out cells must beat.

    python bench/named_candidate.py                 # the held-out seeds of the benches, 10 and 20 a cell
    python bench/named_candidate.py --n 1000        # a larger sample of the same seeds

A double_negation task names one candidate ("It is not true that the answer is not 8."); an even number of
negations makes it the answer, an odd number rules it out. A model that ignores the negations and answers the
named candidate scores, per level, the share of tasks with an even count. Until 2026-12-07 easy and medium
always had two negations, so that shortcut scored 1.0 there; then every level mixed both parities (0.40 / 0.70 /
0.20 on 10 held-out tasks a level, runs 47-50); now the parity alternates with the seed, so it scores 0.50. Prints,
per level, the share of the held-out tasks (``alice_app.evaluation.held_out_tasks``, the seeds every bench
evaluates on) whose answer is the named candidate, and how many negations they have.
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from alice_app.arithmetic import value  # noqa: E402
from alice_app.config import HELD_OUT_SEED_START  # noqa: E402
from alice_app.evaluation import held_out_tasks  # noqa: E402
from alice_app.types import LEVELS  # noqa: E402

FAMILY = "double_negation"


def named_share(n_per_cell: int, seed_start: int = HELD_OUT_SEED_START) -> dict[str, tuple[float, dict[int, int]]]:
    """{level: (share of the cell's tasks answered by the named candidate, {negations: tasks})}."""
    shares = {}
    for level in LEVELS:
        tasks = held_out_tasks([FAMILY], [level], n_per_cell, seed_start)
        named = sum(str(value(str(task.metadata["named"]))) == task.answer for task in tasks)
        depths = Counter(int(task.metadata["negation_depth"]) for task in tasks)
        shares[level] = (named / len(tasks), dict(sorted(depths.items())))
    return shares


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, nargs="+", default=[10, 20], help="held-out tasks per level")
    args = parser.parse_args(argv)
    if min(args.n) < 1:
        parser.error("--n must be at least 1")
    print("| held-out tasks a level | " + " | ".join(LEVELS) + " |")
    print("|---|" + "---|" * len(LEVELS))
    for n in args.n:
        cells = named_share(n)
        print(f"| {n} | " + " | ".join(f"{share:.2f} (negations {counts})" for share, counts in cells.values()) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
