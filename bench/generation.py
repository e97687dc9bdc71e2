"""Answers per second of the embedded SmolLM2, one chat at a time vs batched, in one run.

    python bench/generation.py [--n 16] [--max-tokens 32] [--batch-size 16]

Both runs answer the same held-out turn-1 chats with greedy decoding and the same token budget;
the last line is the ratio (target: batched >= 3x on a 2-core CPU).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, no install

from alice_app.config import HELD_OUT_SEED_START, Settings  # noqa: E402
from alice_app.episode import new_episode  # noqa: E402
from alice_app.evaluation import held_out_tasks  # noqa: E402
from alice_app.models.loader import load_causal_lm  # noqa: E402
from alice_app.models.local import LocalPolicy  # noqa: E402


def answers_per_second(policy: LocalPolicy, chats: list, batch: int, max_tokens: int) -> float:
    started = time.perf_counter()
    for start in range(0, len(chats), batch):
        policy.generate(chats[start : start + batch], max_tokens=max_tokens)
    return len(chats) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=16, help="chats to answer in each run")
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--batch-size", type=int, default=16)
    args = parser.parse_args()

    import torch

    model, tokenizer = load_causal_lm(Settings())
    policy = LocalPolicy(model, tokenizer, "embedded", batch_size=args.batch_size)
    families = ["negation_arithmetic", "false_claim", "plain_arithmetic", "double_negation"]
    tasks = held_out_tasks(families, ["easy", "medium"], (args.n + 7) // 8, HELD_OUT_SEED_START)[: args.n]
    chats = [new_episode(task).messages() for task in tasks]
    policy.generate(chats[:2], max_tokens=4)  # warm-up: first-call allocations are not throughput

    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, {args.n} chats, "
          f"{args.max_tokens} new tokens max, greedy")
    single = answers_per_second(policy, chats, 1, args.max_tokens)
    print(f"one at a time: {single:.2f} answers/s")
    batched = answers_per_second(policy, chats, args.batch_size, args.max_tokens)
    print(f"batched ({args.batch_size}): {batched:.2f} answers/s")
    print(f"ratio (batched/one at a time): {batched / single:.2f}")


if __name__ == "__main__":
    main()
