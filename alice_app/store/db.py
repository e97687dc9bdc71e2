"""Opening the SQLite database: WAL, foreign keys, busy timeout, migrations, one lock per file.

The web UI, the training job and the OpenEnv server share one database, often from several
threads of one process. A single connection is shared (``check_same_thread=False``) and every
statement goes through ``db.lock`` so that one thread's transaction never interleaves with
another's; other processes are kept in step by WAL and the busy timeout.
"""
from __future__ import annotations

import os
import shutil
import sqlite3
import threading
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator, Sequence

import sqlite_utils

from alice_app.store.migrations import MIGRATIONS

BUSY_TIMEOUT_S = 10.0


class StoreError(RuntimeError):
    """The database file cannot be used; the message names the file and what to do."""


class AliceDatabase(sqlite_utils.Database):
    """A sqlite-utils Database with the lock every store class takes around its statements."""

    lock: threading.RLock


def utc_now() -> str:
    """ISO-8601 UTC with milliseconds: sorts lexicographically, so date ranges are string ranges."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def open_db(path: str | Path) -> AliceDatabase:
    """Open (creating if needed) the database at ``path`` and bring its schema up to date."""
    path = Path(path)
    if path.is_dir():
        raise StoreError(f"{path} is a directory; set ALICE_DB to a file path such as {path / 'alice.db'}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(path), check_same_thread=False, timeout=BUSY_TIMEOUT_S)
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"cannot open {path} ({exc}); check that the folder exists and is writable") from None
    try:
        db = _configure(conn, path)
        migrate(db)
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise StoreError(_unusable_message(path, exc)) from None
    except StoreError as exc:
        conn.close()
        raise StoreError(f"{path}: {exc}") from None
    return db


def _configure(conn: sqlite3.Connection, path: Path) -> AliceDatabase:
    # Reading the schema first fails fast on a file that is not a database, before any
    # pragma could try to write to it: the user's file is never modified.
    conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    db = AliceDatabase(conn, execute_plugins=False)
    db.lock = threading.RLock()
    db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
    db.execute("PRAGMA foreign_keys = ON")
    db.enable_wal()
    db.execute("PRAGMA synchronous = NORMAL")  # safe with WAL; far fewer fsyncs per write
    return db


READ_ONLY_SIGNS = ("readonly", "read-only", "unable to open", "permission denied")


def _unusable_message(path: Path, exc: Exception) -> str:
    if _is_sqlite_file(path) and (any(sign in str(exc).lower() for sign in READ_ONLY_SIGNS)
                                  or not os.access(path.parent, os.W_OK) or not os.access(path, os.W_OK)):
        return (
            f"{path} is a database ALICE can read, but it cannot write there ({exc}): SQLite needs to "
            f"write the file and its -wal/-shm files beside it in {path.parent}. Make that folder "
            f"writable, or copy the database into a writable folder and point ALICE_DB at the copy."
        )
    return (
        f"{path} is not a usable ALICE database ({exc}). It was left untouched: move it aside "
        f"(or point ALICE_DB at another file) and ALICE will create a fresh database."
    )


def _is_sqlite_file(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def schema_version(db: sqlite_utils.Database) -> int:
    if not db["schema_version"].exists():
        return 0
    row = db.execute("SELECT max(version) FROM schema_version").fetchone()
    return int(row[0] or 0)


def migrate(db: AliceDatabase) -> int:
    """Apply the numbered migrations not yet applied; returns the resulting version.

    ``BEGIN IMMEDIATE`` takes the write lock before reading the version, so two processes
    opening a fresh file at once cannot both run migration 1.
    """
    latest = max(number for number, _, _ in MIGRATIONS)  # helpers append numbers out of order
    with db.lock:
        db.execute("BEGIN IMMEDIATE")
        try:
            current = schema_version(db)
            if current > latest:
                raise StoreError(
                    f"schema version {current} is newer than this ALICE knows ({latest}); "
                    f"upgrade ALICE or point ALICE_DB at another file"
                )
            for number, _description, script in sorted(MIGRATIONS):
                if number > current:
                    _run_script(db, script)
                    db.execute("INSERT INTO schema_version (version, applied_at) VALUES (?, ?)",
                               [number, utc_now()])
            db.execute("COMMIT")
        except BaseException:
            db.rollback()
            raise
    return latest


def _run_script(db: sqlite_utils.Database, script: str) -> None:
    # executescript() would COMMIT the surrounding transaction; run statement by statement instead.
    statement = ""
    for line in script.splitlines(keepends=True):
        statement += line
        if sqlite3.complete_statement(statement):
            db.execute(statement)
            statement = ""


@contextmanager
def transaction(db: AliceDatabase) -> Iterator[AliceDatabase]:
    """Hold the lock and an atomic transaction: all of the block's writes land, or none.

    The outermost level uses ``BEGIN IMMEDIATE``: taking the write lock up front means another
    process's commit can never invalidate a read made inside the block (a plain ``BEGIN`` would
    fail with "database is locked" there, without waiting); nested blocks become savepoints.
    """
    with db.lock:
        if db.conn.in_transaction:
            with db.atomic():
                yield db
            return
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
            db.execute("COMMIT")
        except BaseException:
            db.rollback()
            raise


MIN_FREE_BYTES = 16 * 1024 * 1024  # below this a write may fail half-way: report unhealthy


def db_file(db: AliceDatabase) -> Path:
    """The file behind ``db`` (``.`` for an in-memory database)."""
    return Path(db.conn.execute("PRAGMA database_list").fetchone()[2] or ".")


def storage_problem(db: AliceDatabase) -> str | None:
    """Why the database cannot take writes now (read-only, disk nearly full, locked), or None."""
    path = db_file(db)
    try:
        free = shutil.disk_usage(path.parent).free
    except OSError as exc:
        return f"cannot check the disk holding {path} ({exc})"
    if free < MIN_FREE_BYTES:
        return f"the disk holding {path} is nearly full ({free // 1024} KB free)"
    if path.exists() and not os.access(path, os.W_OK):
        return f"{path} is not writable"
    try:
        with db.lock:
            db.execute("BEGIN IMMEDIATE")
            db.execute("ROLLBACK")
    except sqlite3.Error as exc:
        return f"{path} cannot take writes ({exc})"
    return None


def fetch_all(db: AliceDatabase, sql: str, params: Sequence[Any] | dict | None = None) -> list[dict]:
    """Run a query under the lock and return its rows as dicts (never a lazy cursor)."""
    with db.lock:
        return list(db.query(sql, params))


def fetch_one(db: AliceDatabase, sql: str, params: Sequence[Any] | dict | None = None) -> dict | None:
    rows = fetch_all(db, sql, params)
    return rows[0] if rows else None
