"""The failure bank: every wrong final answer, deduplicated, labelled, searchable, repairable."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

from alice_app.failure_modes import label_failure
from alice_app.store.db import AliceDatabase, fetch_all, fetch_one, transaction, utc_now
from alice_app.store.queries import Page, chunks, clean_tags, one_id, row_to_dict, validate_page, where_clause
from alice_app.types import FAILURE_MODES, Task, Verdict, check_seed

COUNTABLE = ("family", "level", "mode", "source", "repaired")
ORDER = "ORDER BY last_seen DESC, id DESC"
MAX_NOTES = 20_000

# The same wrong answer to the same task is one failure seen again. Seeing it again after a
# repair means the repair did not hold, so it becomes unrepaired and its repair count restarts.
_UPSERT = """
INSERT INTO failures (task_id, family, level, seed, prompt, response, expected, extracted,
                      answer_key, verdict, mode, source, task, history, created_at, last_seen)
VALUES (:task_id, :family, :level, :seed, :prompt, :response, :expected, :extracted,
        :answer_key, :verdict, :mode, :source, :task, :history, :now, :now)
ON CONFLICT (task_id, answer_key) DO UPDATE SET
    times_seen = times_seen + 1, last_seen = excluded.last_seen,
    repaired = 0, repair_successes = 0,
    history = CASE WHEN excluded.history = '[]' THEN failures.history ELSE excluded.history END
RETURNING id
"""


class FailureBank:
    """All failure-bank reads and writes. Thread-safe: every call takes the database lock."""

    def __init__(self, db: AliceDatabase):
        self.db = db

    # -- writing ---------------------------------------------------------------------------
    def atomic(self):
        """``with bank.atomic():`` every bank and curriculum write in the block lands, or none
        (they share the database; the stores' own transactions nest as savepoints)."""
        return transaction(self.db)

    def record(self, task: Task, response: str, verdict: Verdict, mode: str | None = None,
               source: str = "hunt", history: Sequence[Mapping] = ()) -> int:
        """Bank a wrong answer; returns its id (the existing one when seen before).

        ``history`` holds the turns of the episode that ended in this failure (``Turn.to_dict``);
        a repeat sighting keeps the latest non-empty history.
        """
        if verdict.is_correct:
            raise ValueError(f"verdict for {task.id} is correct; only failures go in the bank")
        check_seed(task.seed)  # SQLite's INTEGER holds 0..2^63-1; say so before writing anything
        mode = mode or label_failure(task, verdict)
        if mode not in FAILURE_MODES:
            raise ValueError(f"mode must be one of {', '.join(FAILURE_MODES)}, not {mode!r}")
        row = {
            "task_id": task.id, "family": task.family, "level": task.level, "seed": task.seed,
            "prompt": task.prompt, "response": response, "expected": task.answer,
            "extracted": verdict.extracted, "answer_key": verdict.extracted or "",
            "verdict": json.dumps(verdict.to_dict(), default=str), "mode": mode, "source": source,
            "task": json.dumps(task.to_dict(), default=str), "now": utc_now(),
            "history": json.dumps(list(history), default=str),
        }
        with transaction(self.db):
            return int(next(self.db.query(_UPSERT, row))["id"])

    def record_attempt(self, task: Task, is_correct: bool) -> None:
        """Count one played episode for the task's family x level (the failure map's denominator)."""
        with transaction(self.db):
            self.db.execute(
                "INSERT INTO attempts (family, level, attempts, correct) VALUES (?, ?, 1, ?) "
                "ON CONFLICT (family, level) DO UPDATE SET attempts = attempts + 1, "
                "correct = correct + excluded.correct",
                [task.family, task.level, int(bool(is_correct))],
            )

    def add_tags(self, ids: Sequence[int], tags: Iterable[str] | str) -> None:
        new = clean_tags(tags)
        self._edit_tags(ids, lambda current: current + [t for t in new if t not in current])

    def remove_tags(self, ids: Sequence[int], tags: Iterable[str] | str) -> None:
        gone = set(clean_tags(tags))
        self._edit_tags(ids, lambda current: [t for t in current if t not in gone])

    def _edit_tags(self, ids: Sequence[int], change) -> None:
        with transaction(self.db):
            for chunk in chunks(ids):
                marks = ", ".join("?" for _ in chunk)
                for row in list(self.db.query(f"SELECT id, tags FROM failures WHERE id IN ({marks})", chunk)):
                    current = json.loads(row["tags"])
                    updated = change(current)
                    if updated != current:
                        self.db.execute("UPDATE failures SET tags = ? WHERE id = ?",
                                        [json.dumps(updated), row["id"]])

    def set_notes(self, id: int, notes: str) -> None:
        if not isinstance(notes, str):
            raise ValueError(f"notes must be text, not {type(notes).__name__}")
        if len(notes) > MAX_NOTES:
            raise ValueError(f"notes are limited to {MAX_NOTES} characters (got {len(notes)})")
        with transaction(self.db):
            if self.db.execute("UPDATE failures SET notes = ? WHERE id = ?", [notes, one_id(id)]).rowcount == 0:
                raise ValueError(f"no failure with id {id}")

    def set_repaired(self, ids: Sequence[int], repaired: bool = True) -> int:
        """Mark failures (un)repaired; returns how many rows actually changed (ids that do not
        exist, or are already so marked, are not counted)."""
        changed = 0
        with transaction(self.db):
            for chunk in chunks(ids):
                marks = ", ".join("?" for _ in chunk)
                changed += self.db.execute(
                    f"UPDATE failures SET repaired = ? WHERE id IN ({marks}) AND repaired != ?",
                    [int(repaired), *chunk, int(repaired)],
                ).rowcount
        return changed

    def record_repair_attempt(self, id: int, solved: bool, required: int = 3) -> bool:
        """Count one repair variant played; repaired once ``required`` variants were solved.

        Returns whether the failure is now repaired (False if it was deleted meanwhile).
        """
        if not isinstance(required, int) or required < 1:
            raise ValueError(f"required must be a whole number >= 1, not {required!r}")
        with transaction(self.db):
            rows = list(self.db.query(
                "UPDATE failures SET repair_attempts = repair_attempts + 1, "
                "repair_successes = repair_successes + :solved, "
                "repaired = CASE WHEN repair_successes + :solved >= :required THEN 1 ELSE repaired END "
                "WHERE id = :id RETURNING repaired",
                {"solved": int(bool(solved)), "required": required, "id": int(id)},
            ))
        return bool(rows and rows[0]["repaired"])

    def delete(self, ids: Sequence[int]) -> int:
        deleted = 0
        with transaction(self.db):
            for chunk in chunks(ids):
                marks = ", ".join("?" for _ in chunk)
                deleted += self.db.execute(f"DELETE FROM failures WHERE id IN ({marks})", chunk).rowcount
        return deleted

    # -- reading ---------------------------------------------------------------------------
    def get(self, id: int) -> dict | None:
        row = fetch_one(self.db, "SELECT * FROM failures WHERE id = ?", [one_id(id)])
        return row_to_dict(row) if row else None

    def query(self, *, page: int = 1, page_size: int = 50, **filters: Any) -> Page:
        """Filter (family, level, mode, tag, repaired, search, since, until, source) and paginate,
        newest first."""
        validate_page(page, page_size)
        where, params = where_clause(**filters)
        with self.db.lock:
            total = self.db.execute(f"SELECT count(*) FROM failures {where}", params).fetchone()[0]
            rows = fetch_all(self.db, f"SELECT * FROM failures {where} {ORDER} LIMIT ? OFFSET ?",
                             [*params, page_size, (page - 1) * page_size])
        return Page([row_to_dict(r) for r in rows], int(total), page, page_size)

    def iter_rows(self, batch_size: int = 500, **filters: Any) -> Iterator[dict]:
        """Every matching row in id order, fetched in batches so the lock is held only briefly."""
        where, params = where_clause(**filters)
        where = f"{where} AND id > ?" if where else "WHERE id > ?"
        last_id = 0
        while True:
            rows = fetch_all(self.db, f"SELECT * FROM failures {where} ORDER BY id LIMIT ?",
                             [*params, last_id, batch_size])
            yield from (row_to_dict(r) for r in rows)
            if len(rows) < batch_size:
                return
            last_id = rows[-1]["id"]

    def count(self, **filters: Any) -> int:
        where, params = where_clause(**filters)
        with self.db.lock:
            return int(self.db.execute(f"SELECT count(*) FROM failures {where}", params).fetchone()[0])

    def count_by(self, field: str, *, weighted: bool = False, **filters: Any) -> dict[str, int]:
        """Failures per value of ``field``; ``weighted`` counts every time a failure was seen."""
        if field not in COUNTABLE:
            raise ValueError(f"count_by field must be one of {', '.join(COUNTABLE)}, not {field!r}")
        where, params = where_clause(**filters)
        measure = "sum(times_seen)" if weighted else "count(*)"
        rows = fetch_all(self.db, f"SELECT {field} AS k, {measure} AS n FROM failures {where} "
                                  f"GROUP BY {field} ORDER BY n DESC, k", params)
        return {str(r["k"]): int(r["n"]) for r in rows}

    def family_mode_counts(self, **filters: Any) -> list[dict[str, Any]]:
        """``[{"family", "mode", "n"}]`` in one grouped query: families by their total, then modes by count."""
        where, params = where_clause(**filters)
        rows = fetch_all(self.db, f"SELECT family, mode, count(*) AS n FROM failures {where} GROUP BY family, mode "
                                  "ORDER BY sum(count(*)) OVER (PARTITION BY family) DESC, family, n DESC, mode",
                         params)
        return [{"family": str(r["family"]), "mode": str(r["mode"]), "n": int(r["n"])} for r in rows]

    def tag_counts(self) -> dict[str, int]:
        rows = fetch_all(self.db, "SELECT tag, count(*) AS n FROM failure_tags GROUP BY tag ORDER BY n DESC, tag")
        return {r["tag"]: int(r["n"]) for r in rows}

    def failure_map(self) -> list[dict]:
        """Per family x level: failures (times seen), unique failures, episodes played, failure rate."""
        rows = fetch_all(self.db, """
            SELECT family, level, sum(failures) AS failures, sum(uniq) AS unique_failures,
                   sum(attempts) AS attempts, sum(correct) AS correct
            FROM (SELECT family, level, sum(times_seen) AS failures, count(*) AS uniq,
                         0 AS attempts, 0 AS correct FROM failures GROUP BY family, level
                  UNION ALL
                  SELECT family, level, 0, 0, attempts, correct FROM attempts)
            GROUP BY family, level ORDER BY family, level""")
        for row in rows:
            attempts = row["attempts"]
            row["failure_rate"] = (attempts - row["correct"]) / attempts if attempts else None
        return rows

    def repair_candidates(self, limit: int = 500, *, family: str | None = None) -> list[dict]:
        """Failures worth repairing: unrepaired first, then the most frequent and most recent."""
        where, params = where_clause(family=family)
        rows = fetch_all(self.db, f"SELECT * FROM failures {where} "
                                  "ORDER BY repaired, times_seen DESC, last_seen DESC, id DESC LIMIT ?",
                         [*params, int(limit)])
        return [row_to_dict(r) for r in rows]

    def export_jsonl(self, path: str | Path, **filters: Any) -> int:
        """Write matching rows as JSON lines (atomically: a crash never leaves half a file)."""
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp")
        count = 0
        with tmp.open("w", encoding="utf-8") as out:
            for row in self.iter_rows(**filters):
                out.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
                count += 1
        os.replace(tmp, path)
        return count
