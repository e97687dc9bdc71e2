import sqlite3
import subprocess
import sys
import textwrap
import threading

import pytest

from alice_app.store.db import StoreError, open_db, schema_version
from alice_app.store.failures import FailureBank
from alice_app.store.migrations import MIGRATIONS


def test_fresh_file_gets_every_migration_wal_and_foreign_keys(db):
    assert schema_version(db) == MIGRATIONS[-1][0]
    assert db.journal_mode == "wal"
    assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert db.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000
    assert {"failures", "failures_fts", "attempts", "curriculum_state", "runs", "run_metrics"} <= set(db.table_names())


def test_migrations_are_idempotent_and_keep_data(db_path, make_task, wrong):
    first = open_db(db_path)
    failure_id = FailureBank(first).record(make_task(), "14", wrong("14"), mode="distractor_echo")
    first.close()
    for _ in range(2):
        again = open_db(db_path)
        assert schema_version(again) == MIGRATIONS[-1][0]
        assert again.execute("SELECT count(*) FROM schema_version").fetchone()[0] == len(MIGRATIONS)
        assert FailureBank(again).get(failure_id)["response"] == "14"
        again.close()


def test_a_file_that_is_not_a_database_is_refused_and_left_untouched(tmp_path):
    path = tmp_path / "notes.db"
    content = b"my precious notes, definitely not SQLite\n" * 200
    path.write_bytes(content)
    with pytest.raises(StoreError) as info:
        open_db(path)
    message = str(info.value)
    assert str(path) in message and "move it aside" in message
    assert path.read_bytes() == content
    assert not (tmp_path / "notes.db-wal").exists()


def test_a_corrupt_database_is_refused_and_left_untouched(db_path, make_task, wrong):
    db = open_db(db_path)
    FailureBank(db).record(make_task(), "14", wrong("14"), mode="distractor_echo")
    db.close()
    data = bytearray(db_path.read_bytes())
    data[:100] = b"\x00" * 100  # wipe the header
    db_path.write_bytes(bytes(data))
    with pytest.raises(StoreError, match="not a usable ALICE database"):
        open_db(db_path)
    assert db_path.read_bytes() == bytes(data)


def test_a_directory_path_is_refused_with_a_hint(tmp_path):
    with pytest.raises(StoreError, match="is a directory"):
        open_db(tmp_path)


def test_a_newer_schema_is_refused(db_path):
    db = open_db(db_path)
    db.execute("INSERT INTO schema_version (version, applied_at) VALUES (999, 'future')")
    db.close()
    with pytest.raises(StoreError, match="newer than this ALICE"):
        open_db(db_path)


def test_missing_parent_folders_are_created(tmp_path):
    db = open_db(tmp_path / "a" / "b" / "alice.db")
    assert (tmp_path / "a" / "b" / "alice.db").exists()
    db.close()


def test_several_threads_write_one_connection_without_losing_rows(bank, make_task, wrong):
    errors: list[BaseException] = []

    def worker(offset: int) -> None:
        try:
            for i in range(40):
                task = make_task(seed=offset * 1000 + i)
                bank.record(task, "14", wrong("14"), mode="distractor_echo")
                bank.record_attempt(task, False)
                bank.query(family="negation_arithmetic", page_size=5)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert bank.count() == 240
    assert bank.failure_map()[0]["attempts"] == 240


def test_two_connections_to_one_file_see_each_other(db_path, make_task, wrong):
    writer, reader = open_db(db_path), open_db(db_path)
    failure_id = FailureBank(writer).record(make_task(), "14", wrong("14"), mode="distractor_echo")
    assert FailureBank(reader).get(failure_id)["task_id"] == make_task().id
    writer.close(), reader.close()


def test_fts_table_stays_in_sync_after_updates_and_deletes(bank, db, make_task, wrong):
    failure_id = bank.record(make_task(), "14", wrong("14"), mode="distractor_echo")
    bank.set_notes(failure_id, "zebra")
    bank.delete([failure_id])
    assert db.execute("INSERT INTO failures_fts (failures_fts) VALUES ('integrity-check')").rowcount != 0
    assert bank.query(search="zebra").total == 0
    with pytest.raises(sqlite3.DatabaseError):
        db.execute("INSERT INTO run_metrics (run_id, step, metrics, ts) VALUES (12345, 1, '{}', 'now')")


def test_two_processes_write_one_file_at_once(db_path):
    open_db(db_path).close()
    script = textwrap.dedent(f"""
        import sys
        from alice_app.store.db import open_db
        from alice_app.store.failures import FailureBank
        from alice_app.types import Task, Verdict
        bank = FailureBank(open_db({str(db_path)!r}))
        offset = int(sys.argv[1])
        for i in range(150):
            task = Task(f"f/easy/{{offset + i}}", "f", "easy", "p", "7", "h", offset + i)
            bank.record(task, "14", Verdict(False, 1.0, "no", 1, "14"), mode="other")
            bank.add_tags([1], [f"t{{offset}}"])
    """)
    workers = [subprocess.Popen([sys.executable, "-c", script, str(n * 1000)], stderr=subprocess.PIPE, text=True)
               for n in range(2)]
    errors = [w.communicate(timeout=120)[1] for w in workers]
    assert [w.returncode for w in workers] == [0, 0], errors
    bank = FailureBank(open_db(db_path))
    assert bank.count() == 300 and set(bank.get(1)["tags"]) == {"t0", "t1000"}


def test_a_version_1_bank_gains_the_history_column_and_keeps_its_rows(db_path, make_task, wrong):
    from alice_app.store.migrations import MIGRATION_1

    old = sqlite3.connect(db_path)  # a bank written before migration 2 existed
    old.executescript(MIGRATION_1)
    old.execute("INSERT INTO schema_version (version, applied_at) VALUES (1, '2026-01-01')")
    old.commit()
    old.close()
    db = open_db(db_path)
    assert schema_version(db) == MIGRATIONS[-1][0]
    bank = FailureBank(db)
    failure_id = bank.record(make_task(), "14", wrong("14"), mode="distractor_echo")
    assert bank.get(failure_id)["history"] == []
