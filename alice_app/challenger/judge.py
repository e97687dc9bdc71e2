"""Judging one batch of raw challenger replies: parse, validate, check novelty, fill, measure, reward.

Every reply ends either accepted (stored with provenance and its first pass-rate measurement, and
added to the ``challenger`` family's catalog) or rejected (its reason counted in the store). Nothing
a reply contains can crash the loop: every failure is a ``Rejected`` with a reason.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from alice_app.challenger.difficulty import (DEFAULT_TEMPERATURE, Difficulty, challenger_reward, measure,
                                             near_duplicate_credit)
from alice_app.challenger.family import add_to_catalog, fill
from alice_app.challenger.novelty import NEAR_DUPLICATE, nearest, repetition_penalties
from alice_app.challenger.proposal import Proposal, Rejected, parse_proposal
from alice_app.curriculum import in_zone


@dataclass
class Judgement:
    raw: str
    proposal: Proposal | None = None
    reason: str | None = None  # why it was rejected (None when valid)
    detail: str = ""
    novelty: float | None = None  # 1 - highest similarity to a known template
    difficulty: Difficulty | None = None
    penalty: float = 0.0
    reward: float = 0.0
    stored: bool = False  # a new template entered the store (False for a repeat of a stored one)
    tasks: list = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return self.proposal is not None

    def to_dict(self) -> dict[str, Any]:
        return {"raw": self.raw[:300], "template": self.proposal.template if self.proposal else None,
                "op": self.proposal.op if self.proposal else None, "reason": self.reason, "detail": self.detail,
                "novelty": self.novelty, "difficulty": self.difficulty.to_dict() if self.difficulty else None,
                "penalty": round(self.penalty, 4), "reward": round(self.reward, 4), "stored": self.stored}


def check(raw: Any, known: Sequence[str], default_op: str | None = None) -> Judgement:
    """Parse, validate and check the novelty of one reply (no model involved)."""
    text = raw if isinstance(raw, str) else ""
    judgement = Judgement(raw=text[:4000])
    try:
        proposal = parse_proposal(raw, default_op)
        similarity, match = nearest(proposal.template, known)
        judgement.novelty = round(1.0 - similarity, 4)
        if similarity >= NEAR_DUPLICATE:
            raise Rejected("near_duplicate", f"BLEU {similarity:.2f} against the known wording {match!r}")
        judgement.proposal = proposal
    except Rejected as exc:
        judgement.reason, judgement.detail = exc.reason, exc.detail
    return judgement


def judge_batch(raws: Sequence[Any], known: Sequence[str], *, solver=None, verifier=None, fills: int = 2,
                k: int = 4, seed: int = 0, temperature: float = DEFAULT_TEMPERATURE,
                ops: Sequence[str | None] | None = None) -> list[Judgement]:
    """Judge a batch: validity and novelty, then (with a solver) difficulty over ``fills`` × ``k``
    samples per valid proposal, the repetition penalty within the batch, and the rewards. ``ops``
    are the ops each reply was asked for (used when a reply names none)."""
    ops = list(ops) if ops is not None else [None] * len(raws)
    judgements = [check(raw, known, op) for raw, op in zip(raws, ops)]
    for index, judgement in enumerate(judgements):
        if judgement.valid:
            judgement.tasks = [fill(judgement.proposal, seed * 1000 + index * 10 + j) for j in range(fills)]
    valid = [j for j in judgements if j.valid]
    if solver is not None and valid:
        for judgement, difficulty in zip(valid, measure(solver, verifier, [j.tasks for j in valid], k, temperature)):
            judgement.difficulty = difficulty
    penalties = repetition_penalties([j.proposal.template if j.valid else None for j in judgements])
    for judgement, penalty in zip(judgements, penalties):
        judgement.penalty = penalty
        rate = judgement.difficulty.pass_rate if judgement.difficulty else None
        judgement.reward = (near_duplicate_credit(judgement.novelty) if judgement.reason == "near_duplicate"
                            else challenger_reward(judgement.valid, rate, penalty))
    return judgements


def persist(judgements: Sequence[Judgement], store, *, proposer: str, solver_id: str = "",
            round: int | None = None, run_id: int | None = None) -> None:
    """Accepted templates into the store and the catalog; rejections with their reasons."""
    for judgement in judgements:
        if not judgement.valid:
            store.reject(judgement.raw, judgement.reason, judgement.detail, proposer=proposer, round=round,
                         run_id=run_id)
            continue
        judgement.stored = store.accept(judgement.proposal, proposer=proposer, novelty=judgement.novelty or 0.0,
                                        round=round, run_id=run_id)
        if judgement.difficulty and judgement.difficulty.n:
            d = judgement.difficulty
            store.record_pass_rate(judgement.proposal.template_id, d.passes, d.n, solver_id, d.confidence)
    add_to_catalog(j.proposal for j in judgements if j.valid)


def summarize(judgements: Sequence[Judgement], zone: tuple[float, float] = (0.2, 0.8)) -> dict[str, Any]:
    """Validity, novelty and zone rates of a batch, the rejection reasons, the mean reward and the
    share of proposals with any reward."""
    total = max(len(judgements), 1)
    valid = [j for j in judgements if j.valid]
    measured = [j for j in valid if j.difficulty and j.difficulty.n]
    reasons: dict[str, int] = {}
    for j in judgements:
        if j.reason:
            reasons[j.reason] = reasons.get(j.reason, 0) + 1
    parsed = [j for j in judgements if j.valid or j.reason == "near_duplicate"]
    return {
        "proposals": len(judgements),
        "validity_rate": round(len(parsed) / total, 4),  # well-formed and safe, novel or not
        "novelty_rate": round(len(valid) / total, 4),  # valid and not a near-duplicate
        "zone_rate": round(sum(in_zone(j.difficulty.pass_rate, zone) for j in measured) / total, 4),
        "mean_reward": round(sum(j.reward for j in judgements) / total, 4),
        "rewarded_share": round(sum(j.reward > 0 for j in judgements) / total, 4),  # GRPO can tell these apart
        "mean_pass_rate": round(sum(j.difficulty.pass_rate for j in measured) / len(measured), 4) if measured else None,
        "rejections": reasons,
    }
