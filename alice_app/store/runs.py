"""Training runs: status and progress (which the UI polls), per-step metrics, before/after evals."""
from __future__ import annotations

import json
from typing import Any

from alice_app.store.db import AliceDatabase, fetch_all, fetch_one, transaction, utc_now

STATUSES = ("queued", "running", "stopping", "stopped", "completed", "failed")
ACTIVE = ("queued", "running", "stopping")
FINISHED = ("stopped", "completed", "failed")
PHASES = ("before", "after")


class RunStore:
    """All reads and writes of training runs. Thread-safe: the job thread writes, the UI reads."""

    def __init__(self, db: AliceDatabase):
        self.db = db

    def create(self, kind: str, config: dict) -> int:
        if not isinstance(kind, str) or not kind.strip():
            raise ValueError("a run needs a kind, e.g. 'grpo' or 'dpo'")
        now = utc_now()
        with transaction(self.db):
            cursor = self.db.execute(
                "INSERT INTO runs (kind, config, status, created_at, updated_at) VALUES (?, ?, 'queued', ?, ?)",
                [kind, json.dumps(config, default=str), now, now],
            )
            return int(cursor.lastrowid)

    def set_status(self, id: int, status: str, error: str | None = None) -> None:
        if status not in STATUSES:
            raise ValueError(f"status must be one of {', '.join(STATUSES)}, not {status!r}")
        now = utc_now()
        with transaction(self.db):
            cursor = self.db.execute(
                "UPDATE runs SET status = :status, error = :error, updated_at = :now, "
                "started_at = CASE WHEN :status = 'running' AND started_at IS NULL THEN :now ELSE started_at END, "
                "finished_at = CASE WHEN :finished THEN :now ELSE NULL END WHERE id = :id",
                {"status": status, "error": error, "now": now, "finished": status in FINISHED, "id": int(id)},
            )
            _require(cursor.rowcount, id)

    def set_progress(self, run_id: int, step: int, total: int | None) -> None:
        with transaction(self.db):
            cursor = self.db.execute("UPDATE runs SET step = ?, total = ?, updated_at = ? WHERE id = ?",
                                     [int(step), total, utc_now(), int(run_id)])
            _require(cursor.rowcount, run_id)

    def set_checkpoint(self, run_id: int, path: str) -> None:
        with transaction(self.db):
            cursor = self.db.execute("UPDATE runs SET checkpoint = ?, updated_at = ? WHERE id = ?",
                                     [str(path), utc_now(), int(run_id)])
            _require(cursor.rowcount, run_id)

    def mark_interrupted(self) -> int:
        """Fail runs left active by a process that died (call once at start-up); returns how many."""
        now = utc_now()
        marks = ", ".join("?" for _ in ACTIVE)
        with transaction(self.db):
            return self.db.execute(
                f"UPDATE runs SET status = 'failed', error = 'interrupted: the process stopped during the run', "
                f"updated_at = ?, finished_at = ? WHERE status IN ({marks})", [now, now, *ACTIVE],
            ).rowcount

    def get(self, id: int) -> dict | None:
        row = fetch_one(self.db, "SELECT * FROM runs WHERE id = ?", [int(id)])
        return _run_dict(row) if row else None

    def list(self, limit: int = 50) -> list[dict]:
        return [_run_dict(r) for r in fetch_all(self.db, "SELECT * FROM runs ORDER BY id DESC LIMIT ?", [int(limit)])]

    def active(self) -> dict | None:
        marks = ", ".join("?" for _ in ACTIVE)
        row = fetch_one(self.db, f"SELECT * FROM runs WHERE status IN ({marks}) ORDER BY id DESC LIMIT 1", list(ACTIVE))
        return _run_dict(row) if row else None

    def add_metrics(self, run_id: int, step: int, metrics: dict[str, Any]) -> None:
        with transaction(self.db):
            self.db.execute("INSERT INTO run_metrics (run_id, step, metrics, ts) VALUES (?, ?, ?, ?)",
                            [int(run_id), int(step), json.dumps(metrics, default=float), utc_now()])

    def metrics(self, run_id: int) -> list[dict]:
        """One flat dict per logged step: {"step", "ts", **metrics}, in step order."""
        rows = fetch_all(self.db, "SELECT step, ts, metrics FROM run_metrics WHERE run_id = ? ORDER BY step, id",
                         [int(run_id)])
        return [{"step": r["step"], "ts": r["ts"], **json.loads(r["metrics"])} for r in rows]

    def save_eval(self, run_id: int, phase: str, table: dict) -> None:
        if phase not in PHASES:
            raise ValueError(f"phase must be 'before' or 'after', not {phase!r}")
        with transaction(self.db):
            self.db.execute(
                "INSERT INTO run_evals (run_id, phase, result, ts) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (run_id, phase) DO UPDATE SET result = excluded.result, ts = excluded.ts",
                [int(run_id), phase, json.dumps(table, default=str), utc_now()],
            )

    def evals(self, run_id: int) -> dict:
        """{"before": table, "after": table}, with only the phases that were saved."""
        rows = fetch_all(self.db, "SELECT phase, result FROM run_evals WHERE run_id = ?", [int(run_id)])
        return {r["phase"]: json.loads(r["result"]) for r in rows}


def _require(rowcount: int, id: int) -> None:
    if rowcount == 0:
        raise ValueError(f"no training run with id {id}")


def _run_dict(row: dict) -> dict:
    return {**row, "config": json.loads(row["config"])}
