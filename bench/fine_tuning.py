"""Seconds per fine-tuning batch of the warm start: the model's own loss, ``completion_loss`` with every row
computed whole, ``completion_loss`` (the shared prefix computed once), and that under bfloat16 autocast, in one
run; then whether bf16 autocast still learns.

    python bench/fine_tuning.py [--tasks 24] [--repeats 2] [--threads 1] [--learn-tasks 40]

The four are computed, and back-propagated through a fresh LoRA adapter, on the same batches of the
warm start's worked examples (seven families, every wording; ``BATCH_SIZE`` a batch), taking turns batch by
batch so that a change in the machine's load hits all alike. The model's loss (``labels`` passed in) runs
the vocabulary projection at every position; ``completion_loss`` only where a completion token is
predicted, and by default runs the tokens all rows begin with (system prompt, user header) once for the batch;
the bf16 pass is ``completion_loss`` inside ``bf16_autocast()`` (bfloat16 autocast on the CPU, the
weights stay fp32). Prints the share of positions that predict a completion token and of those in the shared
prefix, the largest difference of each loss from the model's over all batches and of each LoRA gradient from the
model's loss's (relative to its largest entry), the mean seconds of each and their ratios to ``completion_loss``.

A faster pass is worth nothing if it does not learn: the learning check fine-tunes two fresh adapters (same
seed) for one epoch on ``--learn-tasks`` tasks' worked examples, one in fp32 and one under bf16 autocast, and
prints each one's mean training loss over its first and last ten batches and its fp32 loss on 8 held-out
examples. (It is why training stays fp32 on a CPU: docs/training.md, "bf16 autocast".)
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, no install

from alice_app.config import Settings  # noqa: E402
from alice_app.tasks import default_families  # noqa: E402
from alice_app.training.config import TrainConfig  # noqa: E402
from alice_app.training.prompts import training_messages  # noqa: E402
from alice_app.training.shared_prefix import shared_prefix_length  # noqa: E402
from alice_app.training.warm_start import (BATCH_SIZE, completion_loss, encode_batch, fine_tune,  # noqa: E402
                                           warm_start_items, worked_examples)


def bf16_autocast():
    """The context of the bf16 passes: bfloat16 autocast on the CPU, the weights left fp32."""
    import torch

    return torch.autocast("cpu", dtype=torch.bfloat16)


def fresh_lora_model(threads: int, drawn_b: bool = False):
    """(config, model, tokenizer): the default families' ``TrainConfig`` and the embedded model with a fresh LoRA
    adapter of it, in training mode, torch on ``threads`` threads and seeded 0. With ``drawn_b`` the adapter's B
    matrices are drawn small and non-zero (a fresh adapter's are zero: the model would be the base model, and its
    A matrices would get no gradient)."""
    import torch
    from peft import get_peft_model

    from alice_app.models.loader import load_causal_lm

    torch.set_num_threads(threads)
    torch.manual_seed(0)
    config = TrainConfig(families=tuple(default_families()))
    model, tokenizer = load_causal_lm(Settings(), for_training=True)
    model = get_peft_model(model, config.lora_config())
    model.train()
    if drawn_b:
        for name, parameter in model.named_parameters():
            if "lora_B" in name:
                torch.nn.init.normal_(parameter, std=1e-3)
    return config, model, tokenizer


def largest_relative_difference(grads, reference) -> float:
    """The largest entry of ``grads`` minus ``reference`` (tensor by tensor), relative to that reference tensor's
    largest entry."""
    return max((float((g - r).abs().max() / r.abs().max().clamp_min(1e-12)) for g, r in zip(grads, reference)),
               default=0.0)


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
    parser.add_argument("--learn-tasks", type=int, default=40, help="tasks of the learning check (0 skips it)")
    args = parser.parse_args()

    config, model, tokenizer = fresh_lora_model(args.threads)
    items = warm_start_items(config.families, args.tasks, 0, training_messages())
    examples = worked_examples([item.task for item in items])
    batches = [encode_batch(tokenizer, examples[i:i + BATCH_SIZE], model.device)
               for i in range(0, len(examples), BATCH_SIZE)]
    def bf16_loss(batch):
        with bf16_autocast():
            return completion_loss(model, batch)

    passes = {"model's loss (logits at every position)": lambda batch: model(**batch).loss,
              "completion_loss, every row whole": lambda batch: completion_loss(model, batch, share_prefix=False),
              "completion_loss (shared prefix once, logits where a completion token is predicted)":
                  lambda batch: completion_loss(model, batch),
              "completion_loss under bf16 autocast": bf16_loss}
    for loss in passes.values():
        timed(lambda: loss(batches[0]))  # warm-up, not counted: the first pass pays for allocations
    model.zero_grad(set_to_none=True)
    seconds = {name: [] for name in passes}
    worst_gap = {name: 0.0 for name in passes}
    worst_grad = {name: 0.0 for name in passes}
    for _ in range(args.repeats):
        for batch in batches:
            values, grads = {}, {}
            for name, loss in passes.items():
                values[name], took = timed(lambda: loss(batch))
                grads[name] = [p.grad.clone() for p in model.parameters() if p.requires_grad]
                model.zero_grad(set_to_none=True)
                seconds[name].append(took)
            reference, reference_grads = next(iter(values.values())), next(iter(grads.values()))
            for name, value in values.items():
                worst_gap[name] = max(worst_gap[name], abs(value - reference))
                worst_grad[name] = max(worst_grad[name], largest_relative_difference(grads[name], reference_grads))
    means = {name: sum(times) / len(times) for name, times in seconds.items()}
    kept = means["completion_loss (shared prefix once, logits where a completion token is predicted)"]
    positions = sum(b["labels"].numel() for b in batches)
    predicting = sum(int((batch["labels"] != -100).sum()) for batch in batches)
    shared = sum(shared_prefix_length(b["input_ids"], b["labels"], b["attention_mask"]) * len(b["input_ids"])
                 for b in batches)
    print(f"{len(batches)} batches of up to {BATCH_SIZE} examples × {args.repeats}, {args.threads} thread(s)")
    print(f"positions that predict a completion token: {predicting / positions:.0%}; "
          f"in the prefix all rows of a batch share: {shared / positions:.0%}")
    for name, mean in means.items():
        print(f"{name}: {mean:.3f} s a batch, {mean / kept:.2f}x completion_loss's time, "
              f"largest difference from the model's loss {worst_gap[name]:.2e}, "
              f"largest relative LoRA gradient difference {worst_grad[name]:.2e}")
    if args.learn_tasks:
        learning_check(config, args.learn_tasks)


def learning_check(config: TrainConfig, tasks: int) -> None:
    """One epoch of fine-tuning from the same fresh adapter in fp32 and under bf16 autocast; their losses."""
    import contextlib

    import torch
    from peft import get_peft_model

    from alice_app.models.loader import load_causal_lm

    examples = worked_examples([item.task for item in warm_start_items(config.families, tasks, 0, training_messages())])
    held_items = warm_start_items(config.families, 8, 99, training_messages())  # another draw
    held_out = worked_examples([item.task for item in held_items])[:8]
    for name, precision in (("fp32", contextlib.nullcontext), ("bf16 autocast", bf16_autocast)):
        torch.manual_seed(0)
        model, tokenizer = load_causal_lm(Settings(), for_training=True)
        model = get_peft_model(model, config.lora_config())
        with precision():
            losses = fine_tune(model, tokenizer, examples, config.fine_tune_learning_rate)
        with torch.no_grad():
            held = float(completion_loss(model, encode_batch(tokenizer, held_out, model.device)))
        first, last = (sum(part) / len(part) for part in (losses[:10], losses[-10:]))
        print(f"learning, {name}: {len(losses)} batches, training loss first 10 {first:.3f} → last 10 {last:.3f}, "
              f"held-out loss (fp32) {held:.3f}")


if __name__ == "__main__":
    main()
