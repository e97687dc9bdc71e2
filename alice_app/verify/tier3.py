"""Tier 3: consistency of k sampled answers to the same task.

The Shannon entropy of the normalised answer distribution, divided by its maximum for k samples
(log2 k: every sample different), gives ``confidence = 1 - normalised entropy``: 1 when all
samples agree, 0 when no two do. A model that sometimes finds the right answer but not reliably
is flagged ``unstable``: its correct answers are luck, not skill.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any, Sequence

from ..types import Task, Verdict
from ..numbers import normalise
from .tier1 import answers_equal, extract_answer

UNSTABLE_BELOW = 0.75  # consistency confidence under which a sometimes-correct model is unstable
NO_ANSWER = "<no answer>"  # samples with nothing extractable still count as one outcome


@dataclass(frozen=True)
class Consistency:
    entropy: float  # bits
    confidence: float  # 1 - entropy / log2(k); 1.0 for a single sample
    majority: str | None  # the most frequent normalised answer (None when that is "no answer")
    pass_rate: float  # fraction of samples equal to task.answer
    unstable: bool  # some samples are right, but the distribution is spread out
    samples: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def consistency(
    task: Task, answers: Sequence[str | None], unstable_below: float = UNSTABLE_BELOW
) -> Consistency:
    """Consistency of ``answers`` (raw replies or extracted answers) to ``task``."""
    if not answers:
        raise ValueError("consistency needs at least one sampled answer")
    numeric = normalise(task.answer) is not None
    normalised = [_normalise(answer, numeric) for answer in answers]
    counts = Counter(normalised)
    entropy = _entropy(counts.values(), len(normalised))
    confidence = 1.0 - entropy / math.log2(len(normalised)) if len(normalised) > 1 else 1.0
    passes = sum(answer != NO_ANSWER and answers_equal(answer, task.answer) for answer in normalised)
    pass_rate = passes / len(normalised)
    majority = counts.most_common(1)[0][0]
    return Consistency(
        entropy=round(entropy, 6),
        confidence=round(min(1.0, max(0.0, confidence)), 6),
        majority=None if majority == NO_ANSWER else majority,
        pass_rate=pass_rate,
        unstable=pass_rate > 0 and confidence < unstable_below,
        samples=len(normalised),
    )


def _normalise(answer: str | None, numeric: bool) -> str:
    # For a numeric task, replies with no number are all the same outcome ("no answer"); for a
    # text answer (reasoning-gym) the reply's own short text is the answer.
    extracted = None if answer is None else extract_answer(answer)
    if extracted is not None:
        return extracted
    text = "" if answer is None or numeric else str(answer).strip()[:200].casefold()
    return text or NO_ANSWER


def _entropy(counts: Sequence[int] | Any, total: int) -> float:
    return -sum((c / total) * math.log2(c / total) for c in counts if c)


def unreliable(verdict: Verdict) -> Verdict:
    """The tier-3 verdict on a right but unstable answer (``verdict.details["unstable"]``): not
    reliably correct. It is banked with the failure mode ``unstable``."""
    return Verdict(is_correct=False, confidence=verdict.confidence, feedback=verdict.feedback, tier=3,
                   extracted=verdict.extracted, details={**verdict.details, "right_but_unstable": True})
