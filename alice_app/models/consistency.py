"""Tier 3 with a real model: draw k extra samples of the same chat and let the stack score them."""
from __future__ import annotations

from typing import Sequence

from alice_app.models.base import Messages, Policy
from alice_app.types import Task, Verdict


def draw_samples(
    policy: Policy,
    chats: Sequence[Messages],
    k: int = 5,
    temperature: float = 0.8,
    max_tokens: int = 64,
) -> list[list[str]]:
    """k sampled answers per chat, all chats in one batched call."""
    if k < 2:
        raise ValueError(f"consistency needs at least 2 samples, not {k}")
    if temperature <= 0:
        raise ValueError("consistency samples need a temperature above 0 (greedy repeats itself)")
    return policy.generate(list(chats), n=k, temperature=temperature, max_tokens=max_tokens)


def verify_with_consistency(
    policy: Policy,
    verifier,
    items: Sequence[tuple[Task, Messages, str]],
    k: int = 5,
    temperature: float = 0.8,
    max_tokens: int = 64,
) -> list[Verdict]:
    """Verdicts for (task, chat that produced the response, response) with a tier-3 confidence.

    ``verifier`` is a ``verify.stack.VerifierStack``; it turns the samples' agreement into the
    confidence and flags a correct answer the model cannot reproduce.
    """
    samples = draw_samples(policy, [chat for _, chat, _ in items], k, temperature, max_tokens)
    return [
        verifier.verify(task, response, samples=task_samples)
        for (task, _, response), task_samples in zip(items, samples)
    ]
