"""Failure-bank tab on 100,000 failures: how long one page of the table takes to fetch.

    python bench/ui_bank.py

Fills a temporary bank through FailureBank.record, then times the tab's own ``search`` handler
(server-side pagination: only one page ever leaves SQLite) for several filters and pages.
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from alice_app.config import Settings  # noqa: E402
from alice_app.services import Services  # noqa: E402
from alice_app.tasks.registry import generate_task  # noqa: E402
from alice_app.types import Verdict  # noqa: E402
from alice_app.ui import bank, inputs  # noqa: E402

ROWS = 100_000
FAMILIES = ("negation_arithmetic", "false_claim", "double_negation", "plain_arithmetic")
ANY = inputs.ALL


def fill(services: Services) -> float:
    tasks = [generate_task(f, level, seed) for f in FAMILIES for level in ("easy", "medium", "hard")
             for seed in range(50)]
    start = time.perf_counter()
    for i in range(ROWS):  # a distinct wrong answer per row, so none is deduplicated
        services.bank.record(tasks[i % len(tasks)], f"Answer: {i}",
                             Verdict(False, 1.0, "wrong", 1, extracted=str(i)), mode="other")
    services.bank.add_tags(list(range(1, ROWS + 1, 100)), ["review"])
    return time.perf_counter() - start


def main() -> None:
    data = Path(tempfile.mkdtemp(prefix="alice-bench-")) / "data"
    services = Services.from_settings(Settings(data_dir=data, db_path=data / "alice.db"))
    print(f"filled {ROWS:,} failures in {fill(services):.1f} s")
    cases = {
        "no filter": [ANY, ANY, ANY, "", ANY, "", "", "", ANY],
        "family + level": ["false_claim", "hard", ANY, "", ANY, "", "", "", ANY],
        "tag": [ANY, ANY, ANY, "review", ANY, "", "", "", ANY],
        "full-text search": [ANY, ANY, ANY, "", ANY, "", "", "99999", ANY],
    }
    for name, filters in cases.items():
        for page in (1, 1000):
            start = time.perf_counter()
            _, info, _ = bank.search(services, *filters, page, 50)
            print(f"{name:18s} page {page:>4}: {1000 * (time.perf_counter() - start):7.1f} ms  ({info})")
    start = time.perf_counter()
    bank.open_failure(services, ROWS // 2)
    print(f"open one failure: {1000 * (time.perf_counter() - start):.1f} ms")


if __name__ == "__main__":
    main()
