"""Tier 2: the semantic-oracle interface, consulted only when tier 1 cannot decide.

Backends (an OpenAI-compatible endpoint, a local model) live in ``alice_app/models/oracle.py``
and implement :class:`Oracle`; this module holds the protocol, the judgement type, the error a
backend raises, and the "none" backend.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..types import Task


class OracleError(RuntimeError):
    """A backend could not judge (timeout, HTTP error, unparsable reply); the stack degrades to tier 1."""


@dataclass(frozen=True)
class OracleJudgement:
    is_correct: bool | None  # None: the oracle could not tell
    confidence: float  # 0..1
    reason: str

    def __post_init__(self) -> None:
        if not 0.0 <= self.confidence <= 1.0:
            raise ValueError(f"oracle confidence must be within 0..1, not {self.confidence}")


@runtime_checkable
class Oracle(Protocol):
    name: str

    def judge(self, task: Task, response: str) -> OracleJudgement:
        """Whether ``response`` answers ``task`` correctly; raise OracleError when unable."""
        ...


class NoOracle:
    """The "none" backend: never judges, so the stack keeps the tier-1 result."""

    name = "none"

    def judge(self, task: Task, response: str) -> OracleJudgement:
        return OracleJudgement(is_correct=None, confidence=0.0, reason="no semantic oracle is configured")


def is_available(oracle: Oracle | None) -> bool:
    """True when ``oracle`` can actually judge (not absent, not the "none" backend)."""
    return oracle is not None and not isinstance(oracle, NoOracle)
