"""Challenger templates: accepted wordings with provenance and pass-rate history, rejected proposals
with their reasons, the figures of each co-evolution round, and duel results."""
from __future__ import annotations

import json
from typing import Any

from alice_app.store.db import AliceDatabase, fetch_all, fetch_one, transaction, utc_now

MAX_RAW_KEPT = 500  # characters of a rejected reply kept for display (a 1 MB reply is not stored)
HISTORY_KEPT = 50  # pass-rate measurements kept per template


class TemplateStore:
    def __init__(self, db: AliceDatabase):
        self.db = db

    # -- accepted templates --------------------------------------------------------------------
    def accept(self, proposal, *, proposer: str, novelty: float, round: int | None = None,
               run_id: int | None = None) -> bool:
        """Store an accepted proposal; False (and nothing changed) when its template is already stored."""
        now = utc_now()
        with transaction(self.db):
            cursor = self.db.execute(
                "INSERT OR IGNORE INTO challenger_templates (template_id, template, op, level, proposer, round, "
                "run_id, novelty, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [proposal.template_id, proposal.template, proposal.op, proposal.level, str(proposer)[:200],
                 round, run_id, float(novelty), now, now])
            return cursor.rowcount > 0

    def record_pass_rate(self, template_id: str, passes: int, n: int, solver: str,
                         consistency: float | None = None) -> None:
        """Add one measurement (k samples of a filled task) to a stored template's history."""
        if n < 1 or not 0 <= passes <= n:
            raise ValueError(f"passes must be within 0..n and n at least 1, not {passes}/{n}")
        with transaction(self.db):
            row = fetch_one(self.db, "SELECT history FROM challenger_templates WHERE template_id = ?", [template_id])
            if row is None:
                return  # a seed template or one deleted meanwhile: nothing to update
            entry = {"ts": utc_now(), "passes": passes, "n": n, "p": round(passes / n, 4), "solver": solver,
                     "consistency": consistency}
            history = (json.loads(row["history"]) + [entry])[-HISTORY_KEPT:]
            self.db.execute("UPDATE challenger_templates SET passes = passes + ?, n = n + ?, history = ?, "
                            "updated_at = ? WHERE template_id = ?",
                            [passes, n, json.dumps(history), entry["ts"], template_id])

    def accepted(self, limit: int = 500) -> list[dict[str, Any]]:
        rows = fetch_all(self.db, "SELECT * FROM challenger_templates ORDER BY created_at DESC, rowid DESC LIMIT ?",
                         [int(limit)])
        return [_template_row(r) for r in rows]

    def get(self, template_id: str) -> dict[str, Any] | None:
        row = fetch_one(self.db, "SELECT * FROM challenger_templates WHERE template_id = ?", [template_id])
        return _template_row(row) if row else None

    def wordings(self) -> list[tuple[str, str]]:
        """(template, op) of every stored template, oldest first (ties in the millisecond by insertion)."""
        rows = fetch_all(self.db, "SELECT template, op FROM challenger_templates ORDER BY created_at, rowid")
        return [(r["template"], r["op"]) for r in rows]

    def delete(self, template_id: str) -> bool:
        with transaction(self.db):
            return self.db.execute("DELETE FROM challenger_templates WHERE template_id = ?",
                                   [template_id]).rowcount > 0

    # -- rejected proposals ----------------------------------------------------------------------
    def reject(self, raw: Any, reason: str, detail: str, *, proposer: str, round: int | None = None,
               run_id: int | None = None) -> None:
        text = raw if isinstance(raw, str) else repr(raw)
        with transaction(self.db):
            self.db.execute("INSERT INTO challenger_rejections (proposer, round, run_id, reason, detail, raw, "
                            "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                            [str(proposer)[:200], round, run_id, reason, detail[:300], text[:MAX_RAW_KEPT],
                             utc_now()])

    def rejections(self, limit: int = 200) -> list[dict[str, Any]]:
        return fetch_all(self.db, "SELECT * FROM challenger_rejections ORDER BY id DESC LIMIT ?", [int(limit)])

    def rejection_counts(self) -> dict[str, int]:
        rows = fetch_all(self.db, "SELECT reason, count(*) AS n FROM challenger_rejections GROUP BY reason "
                                  "ORDER BY n DESC")
        return {r["reason"]: r["n"] for r in rows}

    # -- co-evolution rounds and duels ------------------------------------------------------------
    def add_round(self, run_id: int, round: int, figures: dict, challenger_adapter: str | None = None,
                  solver_adapter: str | None = None) -> None:
        with transaction(self.db):
            self.db.execute("INSERT INTO challenger_rounds (run_id, round, figures, challenger_adapter, "
                            "solver_adapter, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                            [int(run_id), int(round), json.dumps(figures, default=float), challenger_adapter,
                             solver_adapter, utc_now()])

    def rounds(self, run_id: int | None = None) -> list[dict[str, Any]]:
        where, params = ("WHERE run_id = ?", [int(run_id)]) if run_id is not None else ("", [])
        rows = fetch_all(self.db, f"SELECT * FROM challenger_rounds {where} ORDER BY run_id, round", params)
        return [{**r, "figures": json.loads(r["figures"])} for r in rows]

    def add_duel(self, model_a: str, model_b: str, result: dict) -> int:
        with transaction(self.db):
            return int(self.db.execute("INSERT INTO duels (model_a, model_b, result, created_at) VALUES (?, ?, ?, ?)",
                                       [model_a, model_b, json.dumps(result, default=float), utc_now()]).lastrowid)

    def duels(self, limit: int = 20) -> list[dict[str, Any]]:
        rows = fetch_all(self.db, "SELECT * FROM duels ORDER BY id DESC LIMIT ?", [int(limit)])
        return [{**r, "result": json.loads(r["result"])} for r in rows]


def _template_row(row: dict) -> dict[str, Any]:
    n = row["n"]
    return {**row, "history": json.loads(row["history"]), "pass_rate": round(row["passes"] / n, 4) if n else None}

