"""Policy backend for any OpenAI-compatible chat-completions endpoint.

Works with the Hugging Face router, vLLM, Ollama and the llama.cpp server. Each chat of a batch is
one HTTP request (run concurrently); transient failures (timeouts, connection errors, HTTP 429 and
5xx, malformed JSON) are retried with exponential backoff, anything else fails at once with a
message that names the endpoint and what it said.
"""
from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx

from alice_app.models.base import BackendError, Messages, check_generate_args

RETRYABLE_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}


class _Retryable(Exception):
    """A failure worth another try; its message goes into the final error."""


def chat_completions_url(base_url: str) -> str:
    base = base_url.rstrip("/")
    return base if base.endswith("/chat/completions") else base + "/chat/completions"


def parse_choices(payload: Any) -> list[str]:
    """The completion texts of a chat-completions reply, or ValueError saying what is wrong."""
    if not isinstance(payload, dict) or not isinstance(payload.get("choices"), list):
        raise ValueError("the reply has no 'choices' list")
    texts = []
    for choice in payload["choices"]:
        message = choice.get("message") if isinstance(choice, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        if content is None and isinstance(choice, dict):
            content = choice.get("text")  # some servers answer in the legacy completions shape
        if not isinstance(content, str):
            raise ValueError("a choice has no message content")
        texts.append(content.strip())
    return texts


class OpenAIPolicy:
    def __init__(
        self,
        base_url: str,
        model: str,
        token: str | None = None,
        timeout: float = 60.0,
        retries: int = 2,
        backoff: float = 0.5,
        max_concurrency: int = 8,
    ):
        if timeout <= 0 or retries < 0 or max_concurrency < 1:
            raise ValueError("timeout must be > 0, retries >= 0 and max_concurrency >= 1")
        self.url = chat_completions_url(base_url)
        self.model_id = model
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.max_concurrency = max_concurrency
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._client = httpx.Client(timeout=timeout, headers=headers)

    def generate(
        self,
        messages_batch: list[Messages],
        n: int = 1,
        temperature: float = 0.0,
        max_tokens: int = 64,
    ) -> list[list[str]]:
        check_generate_args(messages_batch, n, temperature, max_tokens)
        if len(messages_batch) <= 1:
            return [self._complete(chat, n, temperature, max_tokens) for chat in messages_batch]
        with ThreadPoolExecutor(min(self.max_concurrency, len(messages_batch))) as pool:
            return list(pool.map(lambda chat: self._complete(chat, n, temperature, max_tokens), messages_batch))

    def close(self) -> None:
        self._client.close()

    def _complete(self, chat: Messages, n: int, temperature: float, max_tokens: int) -> list[str]:
        if temperature == 0 and n > 1:  # greedy repeats itself; some servers refuse n > 1 with it
            return self._complete(chat, 1, temperature, max_tokens) * n
        texts: list[str] = []
        # Servers that ignore `n` (Ollama, llama.cpp, some router providers) return one choice;
        # ask again until there are n.
        while len(texts) < n:
            body = {"model": self.model_id, "messages": chat, "n": n - len(texts),
                    "temperature": temperature, "max_tokens": max_tokens}
            got = self._post_with_retries(body)
            if not got:
                raise BackendError(f"{self.url} returned no choices for model {self.model_id!r}")
            texts.extend(got)
        return texts[:n]

    def _post_with_retries(self, body: dict) -> list[str]:
        failures = []
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(self.backoff * 2 ** (attempt - 1))
            try:
                return self._post_once(body)
            except _Retryable as exc:
                failures.append(str(exc))
        raise BackendError(
            f"{self.url} failed after {self.retries + 1} attempt(s) for model {self.model_id!r}: "
            + "; ".join(failures)
        )

    def _post_once(self, body: dict) -> list[str]:
        try:
            response = self._client.post(self.url, json=body)
        except httpx.TimeoutException:
            raise _Retryable(f"no reply within {self.timeout:g} s") from None
        except httpx.TransportError as exc:
            raise _Retryable(f"connection error ({exc.__class__.__name__}: {exc})") from None
        if response.status_code in RETRYABLE_STATUS:
            raise _Retryable(f"HTTP {response.status_code}: {_excerpt(response.text)}")
        if response.status_code >= 400:
            raise BackendError(
                f"{self.url} refused the request for model {self.model_id!r}: "
                f"HTTP {response.status_code}: {_excerpt(response.text)}"
            )
        try:
            return parse_choices(response.json())
        except ValueError as exc:  # json.JSONDecodeError is a ValueError too
            raise _Retryable(f"malformed reply ({exc}): {_excerpt(response.text)}") from None


def _excerpt(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "…"
