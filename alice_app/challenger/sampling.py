"""Tier 3 in the hunt: k sampled answers to each episode's first attempt give its confidence.

A first attempt that was right while the samples disagree (``verify/tier3.py``'s ``unstable``)
is banked with the failure mode ``unstable``: the tier-3 verdict is "not reliably correct", and
the verdict's details keep the samples' consistency.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Iterable, Iterator

from alice_app.training.prompts import task_messages
from alice_app.verify.tier3 import unreliable

SAMPLE_TEMPERATURE = 0.8


def with_confidence(results: Iterable, policy, services, k: int, max_tokens: int = 64,
                    temperature: float = SAMPLE_TEMPERATURE) -> Iterator:
    """Each EpisodeResult with ``confidence`` (and ``unstable``) from k samples of its first turn."""
    for result in results:
        samples = policy.generate([task_messages(result.task)], n=k, temperature=temperature,
                                  max_tokens=max_tokens)[0]
        verdict = services.verifier.verify(result.task, result.first_response, samples=samples)
        unstable = bool(verdict.details.get("unstable"))
        if unstable:
            services.bank.record(result.task, result.first_response, unreliable(verdict), mode="unstable",
                                 source="hunt")
        yield replace(result, confidence=verdict.confidence, unstable=unstable)

