"""Merging failure banks: one database per ALICE server, folded into one afterwards.

Several OpenEnv server replicas each write their own SQLite file (SQLite is one machine's
database, and WAL does not work over network filesystems). ``merge_bank`` folds another
database's failure bank into this one: a failure already present (same task and same wrong
answer) adds its sightings, keeps the earliest first sighting and the latest last one, and joins
its tags; new failures are copied; the per-family × level attempt counts are summed. Curriculum
state, pass rates and runs stay with the server that produced them. Merging the same source
twice counts its sightings twice: merge each replica's file once (e.g. when the replica retires).
"""
from __future__ import annotations

from pathlib import Path

from alice_app.store.db import AliceDatabase, db_file, open_db, schema_version, transaction

_COLUMNS = ("task_id", "family", "level", "seed", "prompt", "response", "expected", "extracted", "answer_key",
            "verdict", "mode", "times_seen", "repaired", "repair_successes", "repair_attempts", "tags", "notes",
            "source", "task", "created_at", "last_seen", "history")

_MERGE_FAILURES = f"""
INSERT INTO failures ({', '.join(_COLUMNS)})
SELECT {', '.join(_COLUMNS)} FROM src.failures WHERE true
ON CONFLICT (task_id, answer_key) DO UPDATE SET
    times_seen = times_seen + excluded.times_seen,
    created_at = min(created_at, excluded.created_at),
    last_seen = max(last_seen, excluded.last_seen),
    repaired = max(repaired, excluded.repaired),
    repair_successes = repair_successes + excluded.repair_successes,
    repair_attempts = repair_attempts + excluded.repair_attempts,
    history = CASE WHEN excluded.last_seen > last_seen THEN excluded.history ELSE history END,
    tags = (SELECT json_group_array(tag) FROM (
        SELECT value AS tag FROM json_each(failures.tags) UNION SELECT value FROM json_each(excluded.tags)))
"""

_MERGE_ATTEMPTS = """
INSERT INTO attempts (family, level, attempts, correct)
SELECT family, level, attempts, correct FROM src.attempts WHERE true
ON CONFLICT (family, level) DO UPDATE SET
    attempts = attempts + excluded.attempts, correct = correct + excluded.correct
"""


def merge_bank(db: AliceDatabase, source: str | Path) -> dict[str, int]:
    """Fold ``source``'s failure bank into ``db``; returns the counts before and after."""
    source = Path(source).resolve()
    if not source.is_file():
        raise ValueError(f"{source} does not exist")
    if source == db_file(db).resolve():
        raise ValueError("a database cannot be merged into itself")
    other = open_db(source)  # brings it to this version's schema (its own migrations), then let go
    try:
        if schema_version(other) != schema_version(db):
            raise ValueError(f"{source} has schema version {schema_version(other)}, this database "
                             f"{schema_version(db)}: open both with the same ALICE version first")
        incoming = int(other.execute("SELECT count(*) FROM failures").fetchone()[0])
    finally:
        other.conn.close()
    with db.lock:
        before = int(db.execute("SELECT count(*) FROM failures").fetchone()[0])
        db.execute("ATTACH DATABASE ? AS src", [str(source)])  # not allowed inside a transaction
        try:
            with transaction(db):
                db.execute(_MERGE_FAILURES)
                db.execute(_MERGE_ATTEMPTS)
        finally:
            db.execute("DETACH DATABASE src")
        after = int(db.execute("SELECT count(*) FROM failures").fetchone()[0])
    return {"before": before, "incoming": incoming, "after": after, "new": after - before}
