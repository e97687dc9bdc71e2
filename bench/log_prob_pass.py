"""Seconds of the GRPO loss pass (forward and backward through TRL's fused LM head), every row whole vs the
group's shared prompt run once (``SharedPrefixCalls``), in one run.

    python bench/log_prob_pass.py [--groups 12] [--repeats 2] [--threads 1]

Each group is what one GRPO step of the default recipe scores: one training prompt (the seven families, worded
as training words them) and ``num_generations`` completions, right-padded as TRL pads them. The completions are
worked solutions of as many other tasks of the prompt's family, so their lengths are those of real replies
(the pass's cost depends on the lengths, not on the words). Both passes run on the same groups, taking turns
group by group so that a change in the machine's load hits both alike, through a LoRA adapter whose B matrices are
drawn small and non-zero (a fresh adapter's are zero, which would leave the A matrices without a gradient to
compare). Prints the share of positions in the shared prefix, the largest difference of the log-probs and
entropies and of each LoRA gradient (relative to its largest entry), the mean seconds of each pass and their ratio.
Generation, the other part of a step, is untouched (a step's split: docs/training.md, "The shared prefix").
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, no install

from alice_app.config import TRAIN_SEED_LIMIT  # noqa: E402
from alice_app.tasks import generate_task  # noqa: E402
from alice_app.tasks.solutions import worked_solution  # noqa: E402
from alice_app.training.feed import static_items  # noqa: E402
from alice_app.training.prompts import training_messages  # noqa: E402
from alice_app.training.shared_prefix import SharedPrefixCalls, shared_prefix_length  # noqa: E402
from bench.fine_tuning import fresh_lora_model, largest_relative_difference  # noqa: E402


def training_items(config, count: int):
    """``count`` training prompts of ``config``'s families (seed 0), worded as training words them."""
    messages = training_messages(config.no_format_share, config.rephrase_share, config.wording_share)
    return static_items(config.families, count, 0, messages)


def group_batch(tokenizer, item, num_generations: int, seed: int):
    """(input_ids, attention_mask, labels, completion width) of one group, as TRL's loss pass receives it."""
    import torch

    from alice_app.models.local import render_chat

    prompt = tokenizer(render_chat(tokenizer, list(item.messages)), add_special_tokens=False)["input_ids"]
    completions = [tokenizer(worked_solution(generate_task(item.task.family, item.task.level,
                                                           (seed * 1_000 + index) % TRAIN_SEED_LIMIT)),
                             add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]
                   for index in range(num_generations)]
    width = max(map(len, completions))
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    ids = torch.tensor([prompt + row + [pad] * (width - len(row)) for row in completions])
    mask = torch.tensor([[1] * (len(prompt) + len(row)) + [0] * (width - len(row)) for row in completions])
    labels = ids.masked_fill(mask == 0, -100)
    labels[:, :-width] = -100
    return ids, mask, labels, width


def timed_pass(call, ids, mask, labels, keep: int, model):
    """(log-probs, entropies, LoRA gradients, seconds) of one forward and backward pass through ``call``."""
    started = time.perf_counter()
    out = call(input_ids=ids, attention_mask=mask, labels=labels, fused_lm_head=True)
    log_probs, entropy = out.log_probs[:, -keep:], out.entropy[:, -keep:]
    (-(log_probs.sum()) - 0.01 * entropy.sum()).backward()
    seconds = time.perf_counter() - started
    grads = [p.grad.clone() for p in model.parameters() if p.requires_grad]
    model.zero_grad(set_to_none=True)
    return log_probs.detach(), entropy.detach(), grads, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=12, help="GRPO groups (one prompt and its completions)")
    parser.add_argument("--repeats", type=int, default=2, help="passes over the groups")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    args = parser.parse_args()

    from trl.trainer.utils import add_fused_lm_head

    config, model, tokenizer = fresh_lora_model(args.threads, drawn_b=True)
    add_fused_lm_head(model.get_base_model(), temperature=config.temperature, outputs=("log_probs", "entropy"))
    groups = [group_batch(tokenizer, item, config.num_generations, index)
              for index, item in enumerate(training_items(config, args.groups))]
    passes = {"every row whole": lambda keep: model, "shared prompt once": lambda keep: SharedPrefixCalls(model, keep)}
    ids, mask, labels, keep = groups[0]
    for call in passes.values():  # warm-up, not counted: the first pass pays for allocations
        timed_pass(call(keep), ids, mask, labels, keep, model)
    seconds = {name: [] for name in passes}
    worst_values, worst_grad = 0.0, 0.0
    for _ in range(args.repeats):
        for ids, mask, labels, keep in groups:
            results = {}
            for name, call in passes.items():
                *results[name], took = timed_pass(call(keep), ids, mask, labels, keep, model)
                seconds[name].append(took)
            (whole_lp, whole_ent, whole_grads), (shared_lp, shared_ent, shared_grads) = results.values()
            worst_values = max(worst_values, float((whole_lp - shared_lp).abs().max()),
                               float((whole_ent - shared_ent).abs().max()))
            worst_grad = max(worst_grad, largest_relative_difference(shared_grads, whole_grads))
    positions = sum(group[0].numel() for group in groups)
    shared = sum(shared_prefix_length(ids, labels, mask, keep) * len(ids) for ids, mask, labels, keep in groups)
    means = {name: sum(times) / len(times) for name, times in seconds.items()}
    print(f"{len(groups)} groups of {config.num_generations} completions × {args.repeats}, {args.threads} thread(s); "
          f"positions in the shared prompt: {shared / positions:.0%}")
    print(f"largest difference of a log-prob or an entropy: {worst_values:.2e}; "
          f"of a LoRA gradient, relative to its largest entry: {worst_grad:.2e}")
    for name, mean in means.items():
        print(f"{name}: {mean:.3f} s a group (forward and backward)")
    print(f"shared / whole: {means['shared prompt once'] / means['every row whole']:.2f}x")


if __name__ == "__main__":
    main()
