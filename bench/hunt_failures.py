"""Where a learning-bench hunt failed: its tasks failed at turn 1, per family, from committed raws.

    python bench/hunt_failures.py RAW.json:alice RAW.json:static --hunt warm_start

``--hunt`` picks which hunt of the arm: ``before`` (the base model's, which banks the failures the repair figures
count by default), ``warm_start`` (the hunt played after the warm start, with ``--bank-after-warm-start``) or
``after`` (the replay after training). Prints, per family, the tasks failed at turn 1 of those played, summed over
the raw's seeds. docs/training.md and training_runs.md quote these counts ("27 of the 72 failures left after the
warm start are exclusion_counting tasks").
"""
from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

HUNTS = ("before", "warm_start", "after")


def failures_by_family(episodes: list[dict]) -> dict[str, tuple[int, int]]:
    """{family: (tasks failed at turn 1, tasks played)} of a hunt's episodes (a task id begins with its family)."""
    played, failed = Counter(), Counter()
    for episode in episodes:
        family = episode["task_id"].split("/", 1)[0]
        played[family] += 1
        failed[family] += not episode["first"]
    return {family: (failed[family], played[family]) for family in sorted(played)}


def arm_hunts(spec: str, hunt: str) -> list[list[dict]]:
    """The episodes of ``hunt`` in every seed of the arm ``spec`` ("RAW.json:ARM")."""
    path, _, arm = spec.rpartition(":")
    if not path or not arm:
        raise ValueError(f"{spec!r}: give RAW.json:ARM")
    runs = json.loads(Path(path).read_text(encoding="utf-8"))["runs"]
    found = [run[arm][hunt]["hunt"]["episodes"] for run in runs.values()
             if arm in run and (run[arm].get(hunt) or {}).get("hunt")]
    if not found:
        raise ValueError(f"{spec!r}: no {hunt} hunt for arm {arm!r} in that raw")
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("specs", nargs="+", metavar="RAW.json:ARM")
    parser.add_argument("--hunt", choices=HUNTS, default="before", help="which hunt of the arm")
    args = parser.parse_args(argv)
    try:
        counted = {spec: [failures_by_family(episodes) for episodes in arm_hunts(spec, args.hunt)]
                   for spec in args.specs}
    except (OSError, ValueError, KeyError) as exc:
        parser.error(str(exc))
    for spec, seeds in counted.items():
        summed = {family: tuple(sum(seed.get(family, (0, 0))[i] for seed in seeds) for i in (0, 1))
                  for family in sorted({family for seed in seeds for family in seed})}
        failed, played = (sum(counts[i] for counts in summed.values()) for i in (0, 1))
        print(f"{spec} ({args.hunt} hunt, {len(seeds)} seed(s)): {failed} of {played} failed at turn 1")
        for family, (failed, played) in summed.items():
            print(f"  {family}: {failed} of {played}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
