"""Tier-2 oracle backends: a language model grades a response against the exact answer.

The verifier stack consults an oracle only when tier 1 cannot decide (no extractable answer,
an equivalent form it does not recognise). The grader sees the task, the reference answer and the
response, and must reply in a fixed two-line format; anything else is "undecided", and a backend
failure raises OracleError so the stack falls back to tier 1 and says why.
"""
from __future__ import annotations

import re

from alice_app.models.base import BackendError, Policy
from alice_app.types import Task
from alice_app.verify.oracle import OracleError, OracleJudgement

GRADER_SYSTEM = (
    "You are a strict grader of short math answers. You are given a problem, its reference "
    "answer (always right) and a student's response. Decide whether the student's FINAL answer "
    "equals the reference answer. Equivalent forms count as equal (7, 7.0, seven, 14/2). "
    "A response that gives several different final answers, hedges, or gives no final answer is "
    "INCORRECT. Ignore the student's reasoning; judge only the final answer.\n"
    "Reply with exactly two lines and nothing else:\n"
    "VERDICT: CORRECT or VERDICT: INCORRECT\n"
    "REASON: <one short sentence>"
)

_VERDICT = re.compile(r"VERDICT\s*[:=]\s*\**\s*(CORRECT|INCORRECT|UNSURE)\b", re.IGNORECASE)
_REASON = re.compile(r"REASON\s*[:=]\s*(.+)", re.IGNORECASE)
MAX_RESPONSE_CHARS = 4000  # a runaway response must not blow the grader's context


def grading_messages(task: Task, response: str) -> list[dict]:
    shown = response if len(response) <= MAX_RESPONSE_CHARS else "…" + response[-MAX_RESPONSE_CHARS:]
    user = (
        f"PROBLEM:\n{task.prompt}\n\nREFERENCE ANSWER: {task.answer}\n\n"
        f"STUDENT RESPONSE:\n{shown}\n\nGrade the student's final answer."
    )
    return [{"role": "system", "content": GRADER_SYSTEM}, {"role": "user", "content": user}]


def parse_verdict(text: str, confidence: float) -> OracleJudgement:
    """Read the grader's reply; the last VERDICT line wins, anything unparseable is undecided."""
    matches = _VERDICT.findall(text or "")
    reason_match = _REASON.search(text or "")
    reason = reason_match.group(1).strip() if reason_match else ""
    if not matches or matches[-1].upper() == "UNSURE":
        shown = " ".join((text or "").split())[:120]
        return OracleJudgement(is_correct=None, confidence=0.0, reason=f"the oracle gave no verdict: {shown!r}")
    is_correct = matches[-1].upper() == "CORRECT"
    return OracleJudgement(is_correct=is_correct, confidence=confidence, reason=reason or matches[-1].upper())


class PolicyOracle:
    """An oracle that asks any Policy backend to grade, greedily."""

    def __init__(self, policy: Policy, name: str, confidence: float = 0.8, max_tokens: int = 48):
        if not 0 < confidence <= 1:
            raise ValueError(f"oracle confidence must be in (0, 1], not {confidence}")
        self.policy = policy
        self.name = name
        self.confidence = confidence
        self.max_tokens = max_tokens

    def judge(self, task: Task, response: str) -> OracleJudgement:
        try:
            reply = self.policy.generate([grading_messages(task, response)], n=1, temperature=0.0,
                                         max_tokens=self.max_tokens)[0][0]
        except BackendError as exc:
            raise OracleError(f"oracle {self.name} failed: {exc}") from exc
        except Exception as exc:  # a local model can fail in many ways; the stack must not
            raise OracleError(f"oracle {self.name} failed: {exc.__class__.__name__}: {exc}") from exc
        return parse_verdict(reply, self.confidence)


class ApiOracle(PolicyOracle):
    """Grades through an OpenAI-compatible endpoint (a large model: trusted more)."""

    def __init__(self, policy: Policy, confidence: float = 0.85):
        super().__init__(policy, name=f"api:{policy.model_id}", confidence=confidence)


class LocalOracle(PolicyOracle):
    """Grades with a local transformers model (a small grader: trusted less)."""

    def __init__(self, policy: Policy, confidence: float = 0.6):
        super().__init__(policy, name=f"local:{policy.model_id}", confidence=confidence)
