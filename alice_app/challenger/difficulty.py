"""Difficulty is measured, not guessed: the solver answers k samples of each filled template.

The pass rate p over all samples (tier 3: consistency over samples, ``verify/tier3.py``) is the
template's difficulty for that solver. The challenger's reward is a ladder, so that GRPO can tell a
better proposal from a worse one even when none reaches the discrimination zone:
- 0 for a reply that is not a valid, safe proposal;
- ``FORM_CREDIT × novelty`` for a well-formed near-duplicate of a known wording: the further it is
  from the wording it copies, the more (``near_duplicate_credit``), always less than a novel one;
- ``FORM_CREDIT + (1 - FORM_CREDIT) × (1 - 2|p - 0.5|)`` for a valid novel one, which peaks at
  p = 0.5, where a task discriminates best; R-Zero's repetition penalty is subtracted (never below 0).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from alice_app.training.prompts import task_messages
from alice_app.types import Task
from alice_app.verify.tier3 import consistency

DEFAULT_K = 4
# The tier-3 sampling temperature of models/consistency.py: at 1.0 a 135M solver is almost never
# right (measured: pass rate 0 on all nine seed templates), which leaves the reward no signal.
DEFAULT_TEMPERATURE = 0.8
FORM_CREDIT = 0.1  # what a valid novel proposal earns before its difficulty counts


@dataclass(frozen=True)
class Difficulty:
    passes: int
    n: int
    confidence: float  # tier-3 agreement of the samples (mean over the filled tasks), 0..1
    unstable: bool  # some samples right but the answers spread out

    @property
    def pass_rate(self) -> float:
        return self.passes / self.n if self.n else 0.0

    def to_dict(self) -> dict:
        return {"passes": self.passes, "n": self.n, "pass_rate": round(self.pass_rate, 4),
                "confidence": round(self.confidence, 4), "unstable": self.unstable}


def uncertainty_reward(pass_rate: float) -> float:
    """1 at p = 0.5, 0 at p = 0 or 1 (R-Zero's uncertainty reward, scaled to 0..1)."""
    if not 0.0 <= pass_rate <= 1.0:
        raise ValueError(f"a pass rate lies in 0..1, not {pass_rate}")
    return 1.0 - 2.0 * abs(pass_rate - 0.5)


def challenger_reward(valid: bool, pass_rate: float | None, penalty: float = 0.0) -> float:
    """The reward of one valid, measured proposal: ``FORM_CREDIT`` plus the rest scaled by the
    uncertainty, minus repetition; 0 when invalid or not measured."""
    if not valid or pass_rate is None:
        return 0.0
    return max(0.0, FORM_CREDIT + (1.0 - FORM_CREDIT) * uncertainty_reward(pass_rate) - penalty)


def near_duplicate_credit(novelty: float) -> float:
    """What a well-formed near-duplicate earns: ``FORM_CREDIT × novelty`` (novelty = 1 − its BLEU
    against the wording it copies, below 1 − ``NEAR_DUPLICATE``), 0 for an exact copy and always
    less than a valid novel proposal earns."""
    if not 0.0 <= novelty <= 1.0:
        raise ValueError(f"novelty lies in 0..1, not {novelty}")
    return FORM_CREDIT * novelty


def measure(solver, verifier, tasks_per_template: Sequence[Sequence[Task]], k: int = DEFAULT_K,
            temperature: float = DEFAULT_TEMPERATURE, max_tokens: int = 48) -> list[Difficulty]:
    """One Difficulty per template: k sampled answers to each of its filled tasks, in one batched call."""
    if k < 1:
        raise ValueError(f"k must be at least 1, not {k}")
    flat = [task for tasks in tasks_per_template for task in tasks]
    if not flat:
        return [Difficulty(0, 0, 0.0, False) for _ in tasks_per_template]
    samples = solver.generate([task_messages(t) for t in flat], n=k, temperature=temperature, max_tokens=max_tokens)
    results, index = [], 0
    for tasks in tasks_per_template:
        passes, n, confidences, unstable = 0, 0, [], False
        for task in tasks:
            answers = samples[index]
            index += 1
            passes += sum(verifier.verify(task, answer).is_correct for answer in answers)
            n += len(answers)
            agreement = consistency(task, answers)
            confidences.append(agreement.confidence)
            unstable = unstable or agreement.unstable
        results.append(Difficulty(passes, n, sum(confidences) / max(len(confidences), 1), unstable))
    return results
