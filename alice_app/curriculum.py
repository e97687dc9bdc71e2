"""Curriculum decisions, pure: per-family rolling accuracy, promotion/demotion, pinning, and the
discrimination zone. Persistence lives in ``store/curriculum.py``.

A family moves up a level when its accuracy over the last ``window`` episodes reaches
``promote_at`` and down when it falls to ``demote_at`` (both only after ``min_samples``
episodes at that level); the window restarts after a move so the new level is judged on its own.
A pinned family never moves.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any, Mapping

from .types import LEVELS


@dataclass(frozen=True)
class CurriculumConfig:
    window: int = field(default=20, metadata={"help": "episodes in the rolling accuracy window"})
    promote_at: float = field(default=0.8, metadata={"help": "accuracy at or above which a family moves up a level"})
    demote_at: float = field(default=0.3, metadata={"help": "accuracy at or below which a family moves down a level"})
    min_samples: int = field(default=8, metadata={"help": "episodes needed at a level before it can change"})
    zone: tuple[float, float] = field(
        default=(0.2, 0.8), metadata={"help": "pass-rate range of tasks worth training on (neither solved nor hopeless)"}
    )
    repair_mix: float = field(default=0.3, metadata={"help": "share of episodes that repair banked failures"})

    def validate(self) -> "CurriculumConfig":
        if self.window < 1:
            raise ValueError(f"window must be at least 1 episode, not {self.window}")
        if not 1 <= self.min_samples <= self.window:
            raise ValueError(f"min_samples must be between 1 and window ({self.window}), not {self.min_samples}")
        if not 0.0 <= self.demote_at < self.promote_at <= 1.0:
            raise ValueError(
                f"need 0 <= demote_at < promote_at <= 1, got demote_at={self.demote_at}, promote_at={self.promote_at}"
            )
        low, high = _pair(self.zone)
        if not 0.0 <= low < high <= 1.0:
            raise ValueError(f"zone must be (low, high) with 0 <= low < high <= 1, not {self.zone}")
        if not 0.0 <= self.repair_mix <= 1.0:
            raise ValueError(f"repair_mix must be a share between 0 and 1, not {self.repair_mix}")
        return self

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "zone": list(self.zone)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "CurriculumConfig":
        known = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
        if "zone" in known:
            known["zone"] = _pair(known["zone"])
        return cls(**known).validate()


@dataclass(frozen=True)
class FamilyState:
    family: str
    level: str = "easy"
    outcomes: tuple[bool, ...] = ()  # the rolling window, oldest first
    pinned: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "outcomes": list(self.outcomes)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "FamilyState":
        pinned = data.get("pinned")
        return cls(
            family=str(data["family"]),
            level=_level(str(data.get("level", "easy"))),
            outcomes=tuple(bool(x) for x in data.get("outcomes") or ()),
            pinned=None if pinned is None else _level(str(pinned)),
        )


def record_outcome(state: FamilyState, correct: bool, config: CurriculumConfig) -> FamilyState:
    """The state after one more episode; may promote or demote (never while pinned)."""
    outcomes = (*state.outcomes, bool(correct))[-config.window :]
    moved = replace(state, outcomes=outcomes)
    if state.pinned is not None or len(outcomes) < config.min_samples:
        return moved
    accuracy = sum(outcomes) / len(outcomes)
    step = 1 if accuracy >= config.promote_at else -1 if accuracy <= config.demote_at else 0
    index = LEVELS.index(state.level) + step
    if step == 0 or not 0 <= index < len(LEVELS):
        return moved
    return replace(state, level=LEVELS[index], outcomes=())


def pin(state: FamilyState, level: str | None) -> FamilyState:
    """Hold a family at ``level`` (None unpins and keeps the current level)."""
    if level is None:
        return replace(state, pinned=None)
    level = _level(level)
    outcomes = state.outcomes if level == state.level else ()
    return replace(state, level=level, pinned=level, outcomes=outcomes)


def rolling_accuracy(state: FamilyState) -> float | None:
    """Share of correct episodes in the window, or None before the first one."""
    return sum(state.outcomes) / len(state.outcomes) if state.outcomes else None


def discrimination(pass_rate: float) -> float:
    """How much a task tells apart good and bad attempts: 4·p·(1−p), 1 at p = 0.5, 0 at 0 or 1.

    This is the variance of a pass/fail outcome scaled to 0..1: a task every sample solves (or
    none does) gives GRPO no signal, one solved half the time gives the most.
    """
    if not 0.0 <= pass_rate <= 1.0:
        raise ValueError(f"pass_rate must be between 0 and 1, not {pass_rate}")
    return 4.0 * pass_rate * (1.0 - pass_rate)


def in_zone(pass_rate: float, zone: tuple[float, float] = (0.2, 0.8)) -> bool:
    """True when ``pass_rate`` lies in the zone of tasks worth training on (bounds included)."""
    low, high = _pair(zone)
    return low <= pass_rate <= high


def _pair(zone: Any) -> tuple[float, float]:
    try:
        low, high = zone
        return float(low), float(high)
    except (TypeError, ValueError):
        raise ValueError(f"zone must be a pair (low, high), not {zone!r}") from None


def _level(level: str) -> str:
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
    return level
