"""The real embedded SmolLM2: conversion, loading and batched generation (slow, CPU)."""
import time

import pytest

from alice_app.config import Settings
from alice_app.models.loader import COMPLETE_MARKER, EMBEDDED_DIRNAME, ensure_embedded_checkpoint, load_causal_lm

pytestmark = pytest.mark.slow


def test_conversion_redoes_half_written_checkpoint_then_is_reused(tmp_path):
    target = tmp_path / "models" / EMBEDDED_DIRNAME
    target.mkdir(parents=True)
    (target / "model.safetensors").write_bytes(b"truncated")  # an interrupted conversion
    (tmp_path / "models" / f".{EMBEDDED_DIRNAME}.tmp-stale").mkdir()

    assert ensure_embedded_checkpoint(tmp_path / "models") == target
    assert (target / COMPLETE_MARKER).is_file()
    assert (target / "model.safetensors").stat().st_size > 100_000_000
    assert not list((tmp_path / "models").glob(".*.tmp-*"))
    written = (target / "model.safetensors").stat().st_mtime_ns

    started = time.monotonic()
    model, tokenizer = load_causal_lm(Settings(data_dir=tmp_path))  # takes the checkpoint
    assert time.monotonic() - started < 30
    assert (target / "model.safetensors").stat().st_mtime_ns == written
    assert getattr(model, "hf_quantizer", None) is None
    assert getattr(model.config, "quantization_config", None) is None
    assert tokenizer.padding_side == "left" and tokenizer.pad_token is not None
    assert not model.training


def test_batched_generation_matches_one_at_a_time(embedded_policy):
    chats = [
        [{"role": "user", "content": "What is 3 + 4? Reply with the number only."}],
        [{"role": "user", "content": "If the result is NOT 14, what is 3 + 4?"}],
        [{"role": "user", "content": "Name a colour."}],
    ]
    batched = embedded_policy.generate(chats, n=2, temperature=0.0, max_tokens=12)
    assert [len(row) for row in batched] == [2, 2, 2]
    assert all(row[0] == row[1] and row[0] for row in batched)  # greedy: n identical answers
    alone = embedded_policy.generate(chats[:1], max_tokens=12)
    assert alone[0][0] == batched[0][0]  # left padding does not change the answer
    assert "7" in batched[0][0]


def test_an_episodes_turns_with_kept_prompts_answer_as_whole_prompts_do(embedded_policy):
    from alice_app.episode import new_episode
    from alice_app.tasks.registry import generate_task

    first = [new_episode(generate_task(family, "medium", seed)).messages()
             for family, seed in (("negation_arithmetic", 3), ("false_claim", 4), ("negated_comparison", 5))]
    whole = embedded_policy.generate(first, max_tokens=24)
    second = [chat + [{"role": "assistant", "content": reply[0]},
                      {"role": "user", "content": "That is not right. Work it out again and end with 'Answer: <n>'."}]
              for chat, reply in zip(first, whole)]
    whole_second = embedded_policy.generate(second, max_tokens=24)
    with embedded_policy.keeping_prompts() as cache:
        assert embedded_policy.generate(first, max_tokens=24) == whole
        assert cache.reused_tokens > 0  # the three chats share the system prompt
        before = cache.reused_tokens
        assert embedded_policy.generate(second, max_tokens=24) == whole_second
        assert cache.reused_tokens - before > sum(len(embedded_policy.tokenizer(embedded_policy.render(c))["input_ids"])
                                                  for c in first) - 3 * 2  # turn 2 reuses all of turn 1's prompts


def test_sampling_returns_n_answers(embedded_policy):
    chat = [{"role": "user", "content": "Pick a random number between 1 and 100."}]
    samples = embedded_policy.generate([chat], n=4, temperature=1.0, max_tokens=8)[0]
    assert len(samples) == 4 and all(isinstance(s, str) for s in samples)


def test_streaming_yields_growing_text_that_ends_as_the_greedy_answer(embedded_policy):
    chat = [{"role": "user", "content": "What is 3 + 4? End with 'Answer: <number>'."}]
    pieces = list(embedded_policy.stream(chat, max_tokens=24))
    assert len(pieces) >= 2
    assert all(later.startswith(earlier) for earlier, later in zip(pieces, pieces[1:]))
    assert pieces[-1] == embedded_policy.generate([chat], max_tokens=24)[0][0]
