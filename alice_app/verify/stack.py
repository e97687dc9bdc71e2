"""The verifier stack: tier 1 decides what it can, tier 2 is asked only about the rest, tier 3
folds in the consistency of sampled answers when there are any.
"""
from __future__ import annotations

import threading
from typing import Any, Sequence

from ..types import Task, Verdict
from . import tier1
from .feedback import ORACLE_UNAVAILABLE, write_feedback
from .oracle import Oracle, OracleError, OracleJudgement, is_available
from .tier3 import UNSTABLE_BELOW, Consistency, consistency

# How much a tier-1 decision is trusted, by how the answer was found: reading the last number
# of free prose is a guess, an explicit "Answer:" line is not.
METHOD_CONFIDENCE = {"last_number": 0.8, "latex": 0.95}
UNDECIDED_CONFIDENCE = 0.5  # tier 1 could not decide and no oracle could either


class VerifierStack:
    """``verify(task, response, samples=None) -> Verdict``; one instance may serve many threads."""

    def __init__(
        self,
        oracle: Oracle | None = None,
        *,
        oracle_timeout_s: float | None = 30.0,
        unstable_below: float = UNSTABLE_BELOW,
    ) -> None:
        if oracle_timeout_s is not None and oracle_timeout_s <= 0:
            raise ValueError(f"oracle_timeout_s must be positive or None, not {oracle_timeout_s}")
        if not 0.0 <= unstable_below <= 1.0:
            raise ValueError(f"unstable_below must be a confidence between 0 and 1, not {unstable_below}")
        self.oracle = oracle
        self.oracle_timeout_s = oracle_timeout_s
        self.unstable_below = unstable_below

    def verify(self, task: Task, response: str, samples: Sequence[str | None] | None = None) -> Verdict:
        response = response if isinstance(response, str) else ("" if response is None else str(response))
        first = tier1.check(task, response)
        verdict = self._tier1_verdict(task, first) if first.decided else self._tier2(task, response, first)
        return self._with_consistency(task, verdict, samples) if samples else verdict

    def _tier1_verdict(self, task: Task, first: tier1.Tier1Result) -> Verdict:
        return Verdict(
            is_correct=first.is_correct,
            confidence=METHOD_CONFIDENCE.get(first.method, 1.0),
            feedback=write_feedback(task, first.is_correct, first.extracted, first.method),
            tier=1,
            extracted=first.extracted,
            details={"tier1": _tier1_details(first)},
        )

    def _tier2(self, task: Task, response: str, first: tier1.Tier1Result) -> Verdict:
        if not is_available(self.oracle):
            return self._degraded(task, first, ORACLE_UNAVAILABLE)
        try:
            judgement = self._judge(task, response)
        except Exception as exc:  # OracleError, a timeout, or a backend bug: keep verifying
            reason = str(exc) if isinstance(exc, OracleError) else f"{type(exc).__name__}: {exc}"
            return self._degraded(task, first, f"The semantic oracle failed ({reason[:200]})")
        if not isinstance(judgement, OracleJudgement) or judgement.is_correct is None:
            why = getattr(judgement, "reason", "no judgement")
            return self._degraded(task, first, f"The semantic oracle could not decide ({why})")
        return Verdict(
            is_correct=judgement.is_correct,
            confidence=judgement.confidence,
            feedback=write_feedback(task, judgement.is_correct, first.extracted, first.method),
            tier=2,
            extracted=first.extracted,
            details={"tier1": _tier1_details(first), "oracle": _name(self.oracle), "oracle_reason": judgement.reason},
        )

    def _degraded(self, task: Task, first: tier1.Tier1Result, why: str) -> Verdict:
        feedback = write_feedback(task, first.is_correct, first.extracted, first.method)
        return Verdict(
            is_correct=first.is_correct,
            confidence=UNDECIDED_CONFIDENCE,
            feedback=f"{feedback} ({why}.)",
            tier=1,
            extracted=first.extracted,
            details={"tier1": _tier1_details(first), "oracle": _name(self.oracle), "degraded": why},
        )

    def _judge(self, task: Task, response: str) -> OracleJudgement:
        if self.oracle_timeout_s is None:
            return self.oracle.judge(task, response)
        # A daemon thread, so a hung backend can neither block this call nor the interpreter's exit.
        box: dict[str, Any] = {}

        def run() -> None:
            try:
                box["judgement"] = self.oracle.judge(task, response)
            except BaseException as exc:  # handed back to the caller's thread
                box["error"] = exc

        worker = threading.Thread(target=run, name=f"oracle-{_name(self.oracle)}", daemon=True)
        worker.start()
        worker.join(self.oracle_timeout_s)
        if worker.is_alive():
            raise OracleError(f"no judgement within {self.oracle_timeout_s:g} s")
        if "error" in box:
            raise box["error"]
        return box["judgement"]

    def _with_consistency(self, task: Task, verdict: Verdict, samples: Sequence[str | None]) -> Verdict:
        result = consistency(task, samples, self.unstable_below)
        flagged = verdict.is_correct and result.unstable
        return Verdict(
            is_correct=verdict.is_correct,
            confidence=min(verdict.confidence, result.confidence),
            feedback=f"{verdict.feedback} {_unstable_note(result)}" if flagged else verdict.feedback,
            tier=3,
            extracted=verdict.extracted,
            details={
                **verdict.details,
                "judged_by_tier": verdict.tier,
                "consistency": result.to_dict(),
                "entropy": result.entropy,
                "pass_rate": result.pass_rate,
                "unstable": flagged,
            },
        )


def _name(oracle: Oracle | None) -> str | None:
    return None if oracle is None else str(getattr(oracle, "name", type(oracle).__name__))


def _tier1_details(first: tier1.Tier1Result) -> dict[str, Any]:
    return {"decided": first.decided, "reason": first.reason, "method": first.method, "score": first.score}


def _unstable_note(result: Consistency) -> str:
    return (
        f"But your sampled answers disagree ({result.pass_rate:.0%} of {result.samples} are right), "
        "so this looks like luck: check the reasoning."
    )
