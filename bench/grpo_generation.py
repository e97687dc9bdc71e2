"""Seconds of a GRPO group's generation (``num_generations`` samples of one training prompt, TRL's generation
settings), the plain ``generate`` call vs the prompt prefilled once (``generate_sharing_prompt``), in one run.

    python bench/grpo_generation.py [--groups 8] [--repeats 1] [--threads 1]

Each group is one training prompt of the default families (worded as training words them), repeated for the
group's rows as TRL batches it, sampled through a LoRA adapter whose B matrices are drawn small and non-zero (a
fresh adapter would be the base model). Both calls run on the same groups with the same sampling seed, taking
turns group by group so that a change in the machine's load hits both alike. Prints the prompt and completion
lengths, how many groups came back token for token the same, the mean seconds of each call and their ratio. The
loss pass, the other part of a step, is ``bench/log_prob_pass.py``'s.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, no install

from alice_app.training.shared_prefix import generate_sharing_prompt  # noqa: E402
from bench.fine_tuning import fresh_lora_model  # noqa: E402
from bench.log_prob_pass import training_items  # noqa: E402


def trl_generation_config(config, tokenizer):
    """The GenerationConfig TRL's GRPOTrainer samples a step's completions with, for ``config``'s settings."""
    from transformers import GenerationConfig

    with tempfile.TemporaryDirectory() as directory:
        args = config.to_grpo_config(directory)
    return GenerationConfig(max_new_tokens=args.max_completion_length, do_sample=True,
                            pad_token_id=tokenizer.pad_token_id, bos_token_id=tokenizer.bos_token_id,
                            eos_token_id=tokenizer.eos_token_id, temperature=args.temperature, top_p=args.top_p,
                            top_k=args.top_k, min_p=args.min_p, repetition_penalty=args.repetition_penalty,
                            cache_implementation=args.cache_implementation, disable_compile=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=8, help="GRPO groups (one prompt, num_generations samples)")
    parser.add_argument("--repeats", type=int, default=1, help="passes over the groups")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    args = parser.parse_args()

    import torch

    from alice_app.models.local import render_chat

    config, model, tokenizer = fresh_lora_model(args.threads, drawn_b=True)
    generation = trl_generation_config(config, tokenizer)
    groups = []
    for item in training_items(config, args.groups):
        prompt = tokenizer(render_chat(tokenizer, list(item.messages)), add_special_tokens=False)["input_ids"]
        ids = torch.tensor([prompt] * config.num_generations)
        groups.append((ids, torch.ones_like(ids)))
    calls = {"plain generate": lambda ids, mask: model.generate(input_ids=ids, attention_mask=mask,
                                                                generation_config=generation),
             "prompt prefilled once": lambda ids, mask: generate_sharing_prompt(
                 model.generate, model, input_ids=ids, attention_mask=mask, generation_config=generation)}
    seconds = {name: [] for name in calls}
    same = completion_tokens = 0
    with torch.no_grad():
        for name, call in calls.items():  # warm-up, not counted: the first call pays for allocations
            call(*groups[0])
        for repeat in range(args.repeats):
            for index, (ids, mask) in enumerate(groups):
                outputs = {}
                order = list(calls.items())
                for name, call in order if (index + repeat) % 2 else order[::-1]:
                    torch.manual_seed(index)
                    started = time.perf_counter()
                    outputs[name] = call(ids, mask)
                    seconds[name].append(time.perf_counter() - started)
                plain, shared = outputs.values()
                same += plain.shape == shared.shape and bool(torch.equal(plain, shared))
                completion = plain[:, ids.shape[1]:]
                completion_tokens += int((completion != generation.pad_token_id).sum())
    runs = args.repeats * len(groups)
    means = {name: sum(times) / len(times) for name, times in seconds.items()}
    print(f"{len(groups)} groups of {config.num_generations} samples × {args.repeats}, {args.threads} thread(s); "
          f"prompt {sum(ids.shape[1] for ids, _ in groups) / len(groups):.0f} tokens, completions "
          f"{completion_tokens / runs / config.num_generations:.1f} tokens on average (at most "
          f"{generation.max_new_tokens})")
    print(f"token for token the same: {same} of {runs} groups")
    for name, mean in means.items():
        print(f"{name}: {mean:.3f} s a group")
    print(f"prefilled / plain: {means['prompt prefilled once'] / means['plain generate']:.2f}x")


if __name__ == "__main__":
    main()
