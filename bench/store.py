"""Failure-bank benchmark: insert N failures into a fresh SQLite file, then time the UI's queries.

    python bench/store.py            # 100,000 rows
    python bench/store.py --rows 20000

Prints insert throughput and the median latency (ms) of each query over several repeats.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from random import Random

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from alice_app.store.db import open_db, transaction  # noqa: E402
from alice_app.store.failures import FailureBank  # noqa: E402
from alice_app.types import FAILURE_MODES, LEVELS, Task, Verdict  # noqa: E402

FAMILIES = ("negation_arithmetic", "double_negation", "false_claim", "negated_comparison",
            "exclusion_counting", "distractor_order_of_ops", "plain_arithmetic", "rg_basic_arithmetic")
WORDS = ("result", "not", "ignore", "value", "sum", "difference", "larger", "smaller", "count", "even",
         "odd", "product", "claim", "stated", "wrong", "compute", "answer", "number", "first", "second")


def synthetic_failure(i: int) -> tuple[Task, str, Verdict, str]:
    rng = Random(i)
    family, level = rng.choice(FAMILIES), rng.choice(LEVELS)
    a, b, w = rng.randint(1, 999), rng.randint(1, 999), rng.randint(1, 999)
    prompt = f"If the {rng.choice(WORDS)} is NOT {w}, what is {a} + {b}? " + " ".join(rng.choices(WORDS, k=8))
    task = Task(f"{family}/{level}/{i}", family, level, prompt, str(a + b), "structural hint", i,
                {"operands": [a, b], "distractors": [w]})
    response = f"The {rng.choice(WORDS)} is {w}. " + " ".join(rng.choices(WORDS, k=12)) + f" Answer: {w}"
    verdict = Verdict(False, 0.9, f"You answered {w}, which the task told you to ignore.", 1, str(w))
    return task, response, verdict, rng.choice(FAILURE_MODES)


def insert(bank: FailureBank, rows: int, batch: int = 2000) -> float:
    start = time.perf_counter()
    for first in range(0, rows, batch):
        with transaction(bank.db):
            for i in range(first, min(rows, first + batch)):
                task, response, verdict, mode = synthetic_failure(i)
                bank.record(task, response, verdict, mode=mode, source="hunt" if i % 4 else "repair")
                bank.record_attempt(task, False)
    return time.perf_counter() - start


def decorate(bank: FailureBank, rows: int) -> None:
    """Tags on 5% of the rows, notes on 1%, 20% repaired: what a used bank looks like."""
    bank.add_tags(range(1, rows + 1, 20), ["reviewed"])
    bank.add_tags(range(1, rows + 1, 97), ["interesting", "negation"])
    bank.set_repaired(range(1, rows + 1, 5))
    with transaction(bank.db):
        for i in range(1, rows + 1, 100):
            bank.set_notes(i, "model echoed the distractor again; consider a contrastive variant")


def timed(fn, repeats: int = 7) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def query_cases(bank: FailureBank) -> dict[str, callable]:
    return {
        "query() no filter, page 1": lambda: bank.query(),
        "filter family+level, page 1": lambda: bank.query(family="false_claim", level="hard"),
        "filter mode+repaired=False": lambda: bank.query(mode="distractor_echo", repaired=False),
        "filter tag": lambda: bank.query(tag="interesting"),
        "filter since (date range)": lambda: bank.query(since="2000-01-01", until="2100-01-01"),
        "search 'contrastive' (FTS)": lambda: bank.query(search="contrastive"),
        "search 'larger ignore' (FTS)": lambda: bank.query(search="larger ignore"),
        "search + family filter": lambda: bank.query(search="distractor", family="negated_comparison"),
        "page 1000 (offset 49,950)": lambda: bank.query(page=1000),
        "count_by('family')": lambda: bank.count_by("family"),
        "count_by('mode')": lambda: bank.count_by("mode"),
        "failure_map()": lambda: bank.failure_map(),
        "repair_candidates(500)": lambda: bank.repair_candidates(500),
        "get(id)": lambda: bank.get(4242),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        bank = FailureBank(open_db(Path(tmp) / "bench.db"))
        seconds = insert(bank, args.rows)
        print(f"inserted {args.rows:,} failures (+ attempt counters) in {seconds:.1f} s "
              f"= {args.rows / seconds:,.0f} rows/s (batched transactions of 2,000)")
        fresh = iter(range(args.rows, args.rows + 1000))
        single = timed(lambda: bank.record(*synthetic_failure(next(fresh))[:3], mode="other"), repeats=50)
        print(f"record() of a new failure, as its own transaction: {single:.2f} ms")
        decorate(bank, args.rows)
        print(f"{'query':34} median ms")
        for name, fn in query_cases(bank).items():
            print(f"{name:34} {timed(fn):9.2f}")


if __name__ == "__main__":
    main()
