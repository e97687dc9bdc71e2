"""Seconds per fine-tuning batch of the warm start, the model's own loss vs ``completion_loss``, in one run.

    python bench/fine_tuning.py [--tasks 24] [--repeats 2] [--threads 1]

Both losses are computed, and back-propagated through a fresh LoRA adapter, on the same batches of the
warm start's worked examples (seven families, every wording; ``BATCH_SIZE`` a batch), alternating batch by
batch so that a change in the machine's load hits both alike. The model's loss (``labels`` passed in) runs
the vocabulary projection at every position; ``completion_loss`` only where a completion token is
predicted. Prints the share of positions that predict a completion token, the largest difference between the
two losses over all batches (they must agree), the mean seconds of each and their ratio.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, no install

from alice_app.config import Settings  # noqa: E402
from alice_app.tasks.registry import core_family_names  # noqa: E402
from alice_app.training.config import TrainConfig  # noqa: E402
from alice_app.training.prompts import training_messages  # noqa: E402
from alice_app.training.warm_start import (BATCH_SIZE, completion_loss, encode_batch, warm_start_items,  # noqa: E402
                                           worked_examples)


def timed(step) -> tuple[float, float]:
    """(the loss ``step`` returns, seconds for it and its backward pass)."""
    started = time.perf_counter()
    loss = step()
    loss.backward()
    return float(loss.detach()), time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=24, help="warm-start tasks whose worked examples are batched")
    parser.add_argument("--repeats", type=int, default=2, help="passes over the batches")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    args = parser.parse_args()

    import torch
    from peft import get_peft_model

    from alice_app.models.loader import load_causal_lm

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    config = TrainConfig(families=(*core_family_names(), "plain_arithmetic"))
    model, tokenizer = load_causal_lm(Settings(), for_training=True)
    model = get_peft_model(model, config.lora_config())
    model.train()
    items = warm_start_items(config.families, args.tasks, 0, training_messages())
    examples = worked_examples([item.task for item in items])
    batches = [encode_batch(tokenizer, examples[i:i + BATCH_SIZE], model.device)
               for i in range(0, len(examples), BATCH_SIZE)]
    full_loss, kept_loss = (lambda batch: model(**batch).loss), (lambda batch: completion_loss(model, batch))
    for loss in (full_loss, kept_loss):
        timed(lambda: loss(batches[0]))  # warm-up, not counted: the first pass pays for allocations
    model.zero_grad(set_to_none=True)
    full_seconds, kept_seconds, worst_gap = [], [], 0.0
    for _ in range(args.repeats):
        for batch in batches:
            full, full_time = timed(lambda: full_loss(batch))
            kept, kept_time = timed(lambda: kept_loss(batch))
            model.zero_grad(set_to_none=True)
            full_seconds.append(full_time)
            kept_seconds.append(kept_time)
            worst_gap = max(worst_gap, abs(full - kept))
    full_mean, kept_mean = (sum(times) / len(times) for times in (full_seconds, kept_seconds))
    predicting = sum(int((batch["labels"] != -100).sum()) for batch in batches)
    print(f"{len(batches)} batches of up to {BATCH_SIZE} examples × {args.repeats}, {args.threads} thread(s)")
    print(f"positions that predict a completion token: {predicting / sum(b['labels'].numel() for b in batches):.0%}")
    print(f"largest difference between the two losses: {worst_gap:.2e}")
    print(f"model's loss (logits at every position): {full_mean:.3f} s a batch")
    print(f"completion_loss (logits where a completion token is predicted): {kept_mean:.3f} s a batch")
    print(f"ratio: {full_mean / kept_mean:.2f}x")


if __name__ == "__main__":
    main()
