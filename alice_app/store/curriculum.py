"""Persisted curriculum: per-family state, the config, level history and per-task pass rates."""
from __future__ import annotations

import json
from typing import Callable, Iterable

from alice_app.curriculum import CurriculumConfig, FamilyState, rolling_accuracy
from alice_app.store.db import AliceDatabase, fetch_all, fetch_one, transaction, utc_now
from alice_app.types import LEVELS


class CurriculumStore:
    """Reads and writes curriculum state; the decisions themselves live in `alice_app.curriculum`."""

    def __init__(self, db: AliceDatabase):
        self.db = db

    # -- per-family state --------------------------------------------------------------------
    def load(self, families: Iterable[str]) -> dict[str, FamilyState]:
        """The state of each named family; a family never seen starts at easy."""
        names = list(families)
        rows = {r["family"]: r for r in fetch_all(self.db, "SELECT * FROM curriculum_state")}
        return {name: _state_from_row(rows[name]) if name in rows else FamilyState(name) for name in names}

    def save(self, state: FamilyState) -> None:
        """Store the state and append a history row (for the level-over-time chart)."""
        _check_level(state.level)
        if state.pinned is not None:
            _check_level(state.pinned)
        now = utc_now()
        with transaction(self.db):
            self.db.execute(
                "INSERT INTO curriculum_state (family, level, outcomes, pinned, updated_at) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (family) DO UPDATE SET level = excluded.level, "
                "outcomes = excluded.outcomes, pinned = excluded.pinned, updated_at = excluded.updated_at",
                [state.family, state.level, json.dumps([bool(o) for o in state.outcomes]), state.pinned, now],
            )
            self.db.execute(
                "INSERT INTO curriculum_history (ts, family, level, accuracy) VALUES (?, ?, ?, ?)",
                [now, state.family, state.pinned or state.level, rolling_accuracy(state)],
            )

    def update(self, family: str, change: Callable[[FamilyState], FamilyState]) -> tuple[FamilyState, FamilyState]:
        """Load, change and save one family's state atomically (two sessions finishing episodes at
        once must not lose an outcome); returns (before, after). ``change`` returning the same
        state object itself writes nothing."""
        with transaction(self.db):
            before = self.load([family])[family]
            after = change(before)
            if after is not before:
                self.save(after)
        return before, after

    def history(self, family: str | None = None, limit: int = 10_000) -> list[dict]:
        """Rows (ts, family, level, accuracy), oldest first; the most recent ``limit`` of them."""
        where, params = ("WHERE family = ?", [family]) if family else ("", [])
        rows = fetch_all(
            self.db,
            f"SELECT ts, family, level, accuracy FROM (SELECT * FROM curriculum_history {where} "
            f"ORDER BY id DESC LIMIT ?) ORDER BY id",
            [*params, int(limit)],
        )
        return rows

    def reset(self) -> None:
        """Forget levels, windows, pins, history and pass rates; the config is kept."""
        with transaction(self.db):
            for table in ("curriculum_state", "curriculum_history", "pass_rates"):
                self.db.execute(f"DELETE FROM {table}")

    # -- config ------------------------------------------------------------------------------
    def load_config(self) -> CurriculumConfig:
        row = fetch_one(self.db, "SELECT config FROM curriculum_config WHERE id = 1")
        return _config_from_json(row["config"]) if row else CurriculumConfig()

    def save_config(self, config: CurriculumConfig) -> None:
        config.validate()
        with transaction(self.db):
            self.db.execute(
                "INSERT INTO curriculum_config (id, config, updated_at) VALUES (1, ?, ?) "
                "ON CONFLICT (id) DO UPDATE SET config = excluded.config, updated_at = excluded.updated_at",
                [json.dumps(config.to_dict()), utc_now()],
            )

    # -- pass rates (discrimination zone) ----------------------------------------------------
    def record_pass_rate(self, task_id: str, family: str, level: str, passes: int, n: int) -> None:
        """Store the latest estimate for a task from ``passes`` correct out of ``n`` samples.

        The latest estimate replaces the old one: the policy changes as it trains, so old samples
        describe a model that no longer exists.
        """
        if not isinstance(n, int) or n < 1 or not isinstance(passes, int) or not 0 <= passes <= n:
            raise ValueError(f"need whole numbers with 0 <= passes <= n and n >= 1 (got passes={passes}, n={n})")
        with transaction(self.db):
            self.db.execute(
                "INSERT INTO pass_rates (task_id, family, level, passes, n, rate, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (task_id) DO UPDATE SET passes = excluded.passes, "
                "n = excluded.n, rate = excluded.rate, updated_at = excluded.updated_at",
                [task_id, family, level, passes, n, passes / n, utc_now()],
            )

    def pass_rate(self, task_id: str) -> float | None:
        row = fetch_one(self.db, "SELECT rate FROM pass_rates WHERE task_id = ?", [task_id])
        return float(row["rate"]) if row else None

    def zone_tasks(self, family: str, level: str, zone: tuple[float, float], limit: int = 200) -> list[str]:
        """Ids of tasks of a family x level whose last pass rate lies inside ``zone``."""
        low, high = zone
        rows = fetch_all(
            self.db,
            "SELECT task_id FROM pass_rates WHERE family = ? AND level = ? AND rate BETWEEN ? AND ? "
            "ORDER BY updated_at DESC LIMIT ?",
            [family, level, float(low), float(high), int(limit)],
        )
        return [r["task_id"] for r in rows]


def _check_level(level: str) -> None:
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")


def _state_from_row(row: dict) -> FamilyState:
    outcomes = tuple(bool(o) for o in json.loads(row["outcomes"]))
    return FamilyState(family=row["family"], level=row["level"], outcomes=outcomes, pinned=row["pinned"])


def _config_from_json(text: str) -> CurriculumConfig:
    try:
        return CurriculumConfig.from_dict(json.loads(text))
    except (TypeError, ValueError):
        # A config saved by an older ALICE that no longer validates: fall back to the defaults
        # rather than make the curriculum unusable; the UI shows (and can re-save) what is used.
        return CurriculumConfig()
