"""The one interface every policy backend implements, and the error they raise."""
from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from typing import Protocol, runtime_checkable

Messages = list[dict]  # one chat: [{"role": "system"|"user"|"assistant", "content": str}, ...]


@runtime_checkable
class Policy(Protocol):
    """Answers a batch of chats: ``generate(batch, n)[i]`` holds the n completions of chat i."""

    model_id: str

    def generate(
        self,
        messages_batch: list[Messages],
        n: int = 1,
        temperature: float = 0.0,
        max_tokens: int = 64,
    ) -> list[list[str]]: ...


class BackendError(RuntimeError):
    """A policy backend could not produce an answer (endpoint down, timeout, bad reply)."""


def check_generate_args(messages_batch: list[Messages], n: int, temperature: float, max_tokens: int) -> None:
    """Reject bad arguments before any model time is spent on them."""
    if n < 1:
        raise ValueError(f"n must be at least 1, not {n}")
    if temperature < 0:
        raise ValueError(f"temperature must be >= 0, not {temperature}")
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be at least 1, not {max_tokens}")
    for chat in messages_batch:
        if not chat or not all(isinstance(m, dict) and "role" in m and "content" in m for m in chat):
            raise ValueError("each chat must be a non-empty list of {'role', 'content'} messages")


def keeping_prompts(policy) -> AbstractContextManager:
    """A block in which ``policy`` keeps the prompts it was asked so a longer one that begins like them is prefilled
    only from where they part (``LocalPolicy.keeping_prompts``; a backend without it: a block that does nothing).
    The weights must stay as they are inside."""
    keep = getattr(policy, "keeping_prompts", None)
    return keep() if callable(keep) else nullcontext()
