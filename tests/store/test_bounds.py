"""Store-level bounds: every write and search refuses what could be slow or wrong, with a message."""
import sqlite3
import time
import tracemalloc

import pytest

from alice_app.store.db import StoreError, _unusable_message, open_db
from alice_app.store.queries import MAX_IDS, MAX_SEARCH_CHARS


@pytest.fixture
def some(bank, make_task, wrong):
    return [bank.record(make_task(seed), f"Answer: {seed}", wrong(str(seed + 100))) for seed in range(1, 14)]


def test_mark_repaired_counts_the_rows_that_changed_not_the_ids_asked(bank, some):
    asked = list(range(1, MAX_IDS + 1))
    assert bank.set_repaired(asked) == len(some)  # 13 rows exist, not 10,000
    assert bank.set_repaired(asked) == 0  # already repaired: nothing changed
    assert bank.set_repaired(some[:3], repaired=False) == 3


def test_more_ids_than_the_limit_are_refused_before_any_work(bank, some):
    tracemalloc.start()
    with pytest.raises(ValueError, match="at most 10,000 ids"):
        bank.set_repaired(range(1, 1_000_000_001))  # a range object: its size is checked, never expanded
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 1_000_000
    with pytest.raises(ValueError, match="at most"):
        bank.add_tags(list(range(MAX_IDS + 1)), "x")
    with pytest.raises(ValueError, match="at most"):
        bank.delete(list(range(MAX_IDS + 1)))
    assert bank.count() == len(some)


@pytest.mark.parametrize("bad", [10**30, -(10**30), "seven", 1.5])
def test_impossible_ids_are_value_errors(bank, some, bad):
    with pytest.raises(ValueError):
        bank.get(bad)
    with pytest.raises(ValueError):
        bank.set_notes(bad, "note")
    with pytest.raises(ValueError):
        bank.set_repaired([bad])


@pytest.mark.parametrize(("search", "needle"), [
    ("x" * (MAX_SEARCH_CHARS + 1), "1,000 characters"),
    ("abc\x00def", "control character"),
    (" ".join("ab" for _ in range(9)), "8 words"),
])
def test_search_is_bounded_with_a_clear_message(bank, some, search, needle):
    with pytest.raises(ValueError, match=needle):
        bank.query(search=search)


def test_the_longest_allowed_search_is_quick(bank, some):
    start = time.perf_counter()
    bank.query(search=" ".join(["a"] * 8))
    bank.query(search="y" * MAX_SEARCH_CHARS)
    assert time.perf_counter() - start < 1.0


def test_tags_are_bounded(bank, some):
    with pytest.raises(ValueError, match="64 characters"):
        bank.add_tags(some[:1], "t" * 65)
    with pytest.raises(ValueError, match="control"):
        bank.add_tags(some[:1], "a\x00b")


def test_a_seed_beyond_the_bound_is_refused_before_writing(bank, make_task, wrong):
    from dataclasses import replace

    with pytest.raises(ValueError, match=r"2\^63 - 1"):
        bank.record(replace(make_task(1), seed=2**63), "Answer: 1", wrong("1"))
    assert bank.count() == 0


def test_a_valid_database_in_a_read_only_place_is_not_called_unusable(db_path):
    open_db(db_path).close()
    message = _unusable_message(db_path, sqlite3.OperationalError("attempt to write a readonly database"))
    assert "cannot write there" in message and "not a usable" not in message


def test_a_file_that_is_not_a_database_is_still_called_unusable(tmp_path):
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"definitely not sqlite" * 100)
    with pytest.raises(StoreError, match="not a usable ALICE database"):
        open_db(junk)
