"""Local transformers policy: batched, chat template, left padding, greedy at temperature 0."""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Any, Iterator

from alice_app.models.base import BackendError, Messages, check_generate_args
from alice_app.models.prompt_cache import DEFAULT_BUDGET_BYTES, PromptCache
from alice_app.models.prompt_cache import supports as supports_prompt_cache


def render_chat(tokenizer: Any, chat: Messages) -> str:
    """``chat`` as ``tokenizer``'s model sees it, ending with the assistant's generation prompt."""
    if getattr(tokenizer, "chat_template", None):
        return tokenizer.apply_chat_template(list(chat), tokenize=False, add_generation_prompt=True)
    return plain_transcript(chat)  # a base model without a chat template


class LocalPolicy:
    """Generates with an in-process transformers model (the embedded SmolLM2 by default).

    Prompts are padded on the left so every row of a batch ends where generation starts; a lock
    keeps concurrent callers (UI sessions, a hunt) from oversubscribing the CPU with parallel
    forward passes. Inside ``keeping_prompts()`` (a hunt, an evaluation: blocks in which the weights stay
    as they are) each prompt is prefilled only from where it parts from one asked before
    (``models.prompt_cache``).
    """

    def __init__(self, model: Any, tokenizer: Any, model_id: str, batch_size: int = 16):
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, not {batch_size}")
        tokenizer.padding_side = "left"
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
        self.model = model
        self.tokenizer = tokenizer
        self.model_id = model_id
        self.batch_size = batch_size
        self._lock = threading.Lock()
        self._prompts: PromptCache | None = None

    @contextmanager
    def keeping_prompts(self, budget_bytes: int = DEFAULT_BUDGET_BYTES) -> Iterator[PromptCache | None]:
        """Within the block, the keys and values of the prompts asked are kept (up to ``budget_bytes``) and a
        prompt that begins like one of them is prefilled from where they part. The weights must not change
        inside. Yields the cache (its counters say how many prompt tokens it served), or None for a model whose
        cache it cannot splice (that model generates as without it)."""
        if self._prompts is not None or not supports_prompt_cache(self.model):
            yield self._prompts
            return
        self._prompts = PromptCache(self.model, budget_bytes)
        try:
            yield self._prompts
        finally:
            self._prompts = None

    def generate(
        self,
        messages_batch: list[Messages],
        n: int = 1,
        temperature: float = 0.0,
        max_tokens: int = 64,
    ) -> list[list[str]]:
        check_generate_args(messages_batch, n, temperature, max_tokens)
        prompts = [self.render(chat) for chat in messages_batch]
        # Greedy decoding is deterministic: n copies of one answer cost one generation.
        samples = n if temperature > 0 else 1
        chats_per_call = max(1, self.batch_size // samples)
        results: list[list[str]] = []
        with self._lock:
            for start in range(0, len(prompts), chats_per_call):
                chunk = prompts[start : start + chats_per_call]
                texts = self._generate_chunk(chunk, samples, temperature, max_tokens)
                results.extend(texts[i * samples : (i + 1) * samples] for i in range(len(chunk)))
        return [row * n if samples == 1 else row for row in results]

    def complete(self, texts: list[str], temperature: float = 0.0, max_tokens: int = 64,
                 seed: int | None = None) -> list[str]:
        """One continuation of each already-rendered prompt (e.g. a chat whose reply is begun). With ``seed``
        the sampling draws from torch's generator seeded with it, and the global random state is left as it was
        (the same seed gives the same continuations)."""
        if not texts or not all(isinstance(t, str) for t in texts):
            raise ValueError("complete needs a non-empty list of prompt strings")
        check_generate_args([[{"role": "user", "content": t}] for t in texts], 1, temperature, max_tokens)
        with self._lock, seeded_sampling(seed):
            return [text for start in range(0, len(texts), self.batch_size)
                    for text in self._generate_chunk(texts[start:start + self.batch_size], 1, temperature, max_tokens)]

    def stream(self, chat: Messages, max_tokens: int = 64) -> Iterator[str]:
        """Greedy answer to one chat, yielded as the text so far after each decoded piece."""
        check_generate_args([chat], 1, 0.0, max_tokens)
        from transformers import TextIteratorStreamer

        encoded = self.tokenizer([self.render(chat)], return_tensors="pt", add_special_tokens=False)
        streamer = TextIteratorStreamer(self.tokenizer, skip_prompt=True, skip_special_tokens=True, timeout=300)
        errors: list[BaseException] = []
        worker = threading.Thread(target=self._generate_into, args=(encoded, streamer, max_tokens, errors),
                                  daemon=True)
        worker.start()
        text = ""
        for piece in streamer:
            text += piece
            yield text.strip()
        worker.join()
        if errors:  # a failed generation must not pass its partial text off as an answer
            raise BackendError(f"{self.model_id} failed while answering: {errors[0]}") from errors[0]

    def _generate_into(self, encoded: Any, streamer: Any, max_tokens: int, errors: list[BaseException]) -> None:
        import torch

        try:
            with self._lock, torch.inference_mode():
                self.model.generate(**encoded.to(self.model.device), max_new_tokens=max_tokens, do_sample=False,
                                    pad_token_id=self.tokenizer.pad_token_id, streamer=streamer)
        except Exception as exc:
            errors.append(exc)
            streamer.end()  # let the reader finish instead of waiting for its timeout

    def render(self, chat: Messages) -> str:
        """The chat as the model sees it, ending with the assistant's generation prompt."""
        return render_chat(self.tokenizer, chat)

    def _generate_chunk(self, prompts: list[str], samples: int, temperature: float, max_tokens: int) -> list[str]:
        import torch

        encoded = self.tokenizer(prompts, return_tensors="pt", padding=True, add_special_tokens=False)
        encoded = encoded.to(self.model.device)
        sampling: dict[str, Any] = {"do_sample": False}
        if temperature > 0:  # plain sampling: no top-k/top-p cut, so k samples show real spread
            sampling = {"do_sample": True, "temperature": temperature, "top_p": 1.0, "top_k": 0}
        inputs: dict[str, Any] = {**encoded, "num_return_sequences": samples}
        prompts = self._prompts  # read once: another thread's block may end meanwhile
        with torch.inference_mode():
            if prompts is not None:
                inputs = with_kept_prompts(prompts, encoded, samples)
            output = self.model.generate(
                **inputs,
                max_new_tokens=max_tokens,
                pad_token_id=self.tokenizer.pad_token_id,
                **sampling,
            )
        new_tokens = output[:, encoded["input_ids"].shape[1] :]
        return [text.strip() for text in self.tokenizer.batch_decode(new_tokens, skip_special_tokens=True)]


def with_kept_prompts(prompts: PromptCache, encoded: Any, samples: int) -> dict[str, Any]:
    """``generate``'s inputs for the tokenized batch ``encoded`` with its cache from ``prompts``, each row repeated
    ``samples`` times (as ``num_return_sequences`` would, which does not repeat a cache)."""
    cache = prompts.batch_cache(encoded["input_ids"], encoded["attention_mask"])
    inputs = {name: encoded[name].repeat_interleave(samples, dim=0) for name in ("input_ids", "attention_mask")}
    if cache is not None:
        if samples > 1:
            cache.batch_repeat_interleave(samples)
        inputs["cache"] = cache
    return inputs


@contextmanager
def seeded_sampling(seed: int | None) -> Iterator[None]:
    """torch's random state seeded with ``seed`` inside, restored after (nothing happens for None): a local
    model's sampled answers inside are the same for the same seed (an endpoint's are not)."""
    if seed is None:
        yield
        return
    import torch

    with torch.random.fork_rng():
        torch.manual_seed(seed)
        yield


def plain_transcript(chat: Messages) -> str:
    lines = [f"{message['role'].capitalize()}: {message['content']}" for message in chat]
    return "\n".join([*lines, "Assistant:"])
