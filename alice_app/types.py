"""Frozen value types shared by every layer.

Everything here is plain data: no I/O, no heavy imports. Each type round-trips through
``to_dict``/``from_dict`` so it can be stored in SQLite, sent over HTTP or kept in ``gr.State``.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Mapping

LEVELS: tuple[str, ...] = ("easy", "medium", "hard")

# Seeds are stored in SQLite INTEGER columns (signed 64-bit), so every entry point (UI, CLI,
# server, store) accepts exactly 0..MAX_SEED and says so with one message: ``check_seed``.
MAX_SEED: int = 2**63 - 1
MAX_SAMPLES = 16  # tier 3: the most extra sampled answers one attempt may carry (environment, server)


def check_seed(seed: object) -> int:
    """``seed`` as an int in 0..MAX_SEED, or ValueError with a message a user can act on."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be a whole number from 0 to {MAX_SEED}, not {seed!r}")
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be a whole number from 0 to {MAX_SEED} (2^63 - 1), not {seed}")
    return seed

# The five turns of an episode, in order. A turn is one attempt by the policy; what differs is
# what the policy is shown before it answers.
TURN_KINDS: tuple[str, ...] = ("attempt", "feedback", "reflection", "hint", "final")

HEDGED = "hedged"  # tier 1's method for an answer line offering several values, and its failure mode
UNEVALUATED = "unevaluated"  # tier 1's method for an answer line that restates a computation ("Answer: 3 + 4")
FAILURE_MODES: tuple[str, ...] = (
    "distractor_echo",  # answered the number it was told to ignore
    "operator_confusion",  # applied the wrong operator (e.g. a - b for a + b)
    "negation_flip",  # answered the complement (e.g. the larger when asked for NOT the larger)
    "off_by_one",  # within one of the right answer
    "format",  # no answer could be extracted
    HEDGED,  # the answer line offered several values ("7 or 8") instead of committing to one
    "unstable",  # right, but k sampled answers disagree (tier 3): luck rather than skill
    "other",
)


@dataclass(frozen=True)
class Task:
    """One generated problem. Deterministic in (family, level, seed, params)."""

    id: str
    family: str
    level: str
    prompt: str
    answer: str  # canonical exact answer, computed by code ("7", "-3", "3/4", "23")
    hint: str  # structural hint: points at the logic, never states the answer
    seed: int
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @property
    def wants_text_answer(self) -> bool:
        """True when the expected answer is text ("CAT,DOG"), not a number (reasoning-gym tasks)."""
        return (self.metadata or {}).get("answer_kind") == "text"

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "metadata": dict(self.metadata)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Task":
        return cls(
            id=str(data["id"]),
            family=str(data["family"]),
            level=str(data["level"]),
            prompt=str(data["prompt"]),
            answer=str(data["answer"]),
            hint=str(data.get("hint", "")),
            seed=int(data["seed"]),
            metadata=dict(data.get("metadata") or {}),
        )


@dataclass(frozen=True)
class Verdict:
    """The verifier's judgement of one response. ``to_dict`` is the public contract."""

    is_correct: bool
    confidence: float  # 0..1
    feedback: str
    tier: int  # 1 programmatic, 2 semantic oracle, 3 consistency
    extracted: str | None = None  # the answer found in the response, normalised
    details: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "is_correct": self.is_correct,
            "confidence": self.confidence,
            "feedback": self.feedback,
            "tier": self.tier,
            "extracted": self.extracted,
            "details": dict(self.details),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Verdict":
        return cls(
            is_correct=bool(data["is_correct"]),
            confidence=float(data["confidence"]),
            feedback=str(data.get("feedback", "")),
            tier=int(data.get("tier", 1)),
            extracted=data.get("extracted"),
            details=dict(data.get("details") or {}),
        )


@dataclass(frozen=True)
class Reward:
    """A reward with its visible components; ``total`` is their documented combination."""

    total: float
    components: Mapping[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"total": self.total, "components": dict(self.components)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Reward":
        return cls(total=float(data["total"]), components=dict(data.get("components") or {}))


@dataclass(frozen=True)
class Turn:
    """One turn of an episode: what the policy was shown, what it said, how it was judged."""

    index: int  # 1..5
    kind: str  # one of TURN_KINDS
    prompt: str  # the user message shown to the policy at this turn
    response: str
    verdict: Verdict
    reward: Reward

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "kind": self.kind,
            "prompt": self.prompt,
            "response": self.response,
            "verdict": self.verdict.to_dict(),
            "reward": self.reward.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Turn":
        return cls(
            index=int(data["index"]),
            kind=str(data["kind"]),
            prompt=str(data["prompt"]),
            response=str(data["response"]),
            verdict=Verdict.from_dict(data["verdict"]),
            reward=Reward.from_dict(data["reward"]),
        )
