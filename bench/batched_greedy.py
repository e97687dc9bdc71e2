"""Do the benches' greedy replies depend on how many prompts share a generate call?

    python bench/batched_greedy.py                        # the embedded model, 2 held-out tasks a cell + 66 paraphrases
    python bench/batched_greedy.py --n-per-cell 5 --batch 16
    python bench/batched_greedy.py --warm-start 96        # after a worked warm start of 96 tasks (seven families)

The learning bench plays its evaluations, hunts and probes ``HUNT_SLOTS`` (32) prompts a call, left-padded,
where older runs used other sizes. Greedy decoding is deterministic for one prompt, but a batch changes the
shapes of the matrix products, so float rounding can differ and flip a near-tie between two tokens. This plays
the same prompts (the held-out tasks of every family, their control twins and the hand-written paraphrase set)
one a call and ``--batch`` a call with the same weights, and prints how many replies differ and whether their
verdicts do. Prints a JSON summary; ``--out`` also keeps the differing replies.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batch", type=int, default=32, help="prompts a call, against one a call")
    parser.add_argument("--n-per-cell", type=int, default=2, help="held-out tasks per family x level")
    parser.add_argument("--warm-start", type=int, default=0, metavar="N",
                        help="first fine-tune a fresh LoRA adapter on the worked solutions of N tasks (seed 0), as the "
                             "learning bench's warm start does; 0 = the base model")
    parser.add_argument("--out", help="write the summary and the differing replies to this JSON file")
    args = parser.parse_args(argv)
    if args.batch < 2 or args.n_per_cell < 1 or args.warm_start < 0:
        parser.error("--batch must be >= 2, --n-per-cell >= 1 and --warm-start >= 0")
    return args


def prompts(n_per_cell: int) -> list[tuple[str, list[dict], int, object]]:
    """(what, chat, max_tokens, judge) for every prompt the check plays: held-out tasks and their twins as the
    evaluation asks them, and the paraphrases with the bench's ``PARAPHRASE_EXTRA_TOKENS`` more."""
    from alice_app.config import EVAL_MAX_TOKENS, HELD_OUT_SEED_START
    from alice_app.episode import new_episode
    from alice_app.evaluation import held_out_tasks
    from alice_app.prompt_sets import prompt_chats, reply_verdicts
    from alice_app.tasks.controls import default_families
    from alice_app.tasks.registry import LEVELS, control_of, has_control
    from alice_app.verify.stack import VerifierStack
    from bench.experiment import PARAPHRASE_EXTRA_TOKENS
    from bench.paraphrases import load_paraphrases

    verifier = VerifierStack()
    tasks = held_out_tasks(default_families(), LEVELS, n_per_cell, HELD_OUT_SEED_START)
    tasks += [control_of(task) for task in tasks if has_control(task.family)]
    asked = [(task.id, new_episode(task).messages(), EVAL_MAX_TOKENS,
              lambda reply, task=task: verifier.verify(task, reply).is_correct) for task in tasks]
    rows = load_paraphrases()
    asked += [(f"paraphrase {row['id']}", chat, EVAL_MAX_TOKENS + PARAPHRASE_EXTRA_TOKENS,
               lambda reply, row=row: reply_verdicts(row, reply)["correct"])
              for row, chat in zip(rows, prompt_chats(rows))]
    return asked


def replies(policy, asked, per_call: int) -> list[str]:
    """Greedy replies to ``asked``, in its order: at most ``per_call`` chats a generate call, each call's chats
    of one max_tokens (the prompts in order, cut where the limit changes or the call is full)."""
    out: list[str] = []
    start = 0
    while start < len(asked):
        tokens = asked[start][2]
        end = start
        while end < len(asked) and end - start < per_call and asked[end][2] == tokens:
            end += 1
        chats = [chat for _, chat, _, _ in asked[start:end]]
        out += [row[0] for row in policy.generate(chats, n=1, temperature=0.0, max_tokens=tokens)]
        start = end
    return out


def main(argv=None) -> int:
    args = parse_args(argv)
    from transformers import set_seed

    from alice_app.config import Settings
    from alice_app.training.config import TrainConfig
    from alice_app.training.evaluate import eval_policy
    from alice_app.training.runner import load_training_model
    from bench.warm_start import warm_started

    settings = Settings.from_env()
    config = TrainConfig.from_dict({"warm_start_prompts": args.warm_start})
    set_seed(config.seed)
    model, tokenizer = load_training_model(settings, config)
    if args.warm_start:
        model, _ = warm_started(model, tokenizer, config)
    asked = prompts(args.n_per_cell)
    timed = {}
    for per_call in (1, args.batch):
        with eval_policy(model, tokenizer, settings, batch_size=per_call) as policy:
            started = time.perf_counter()
            timed[per_call] = (replies(policy, asked, per_call), time.perf_counter() - started)
    alone, together = timed[1][0], timed[args.batch][0]
    differ = [(what, a, b, judge(a), judge(b)) for (what, _, _, judge), a, b in zip(asked, alone, together) if a != b]
    summary = {"prompts": len(asked), "batch": args.batch, "warm_start": args.warm_start, "replies_differ": len(differ),
               "verdicts_differ": sum(va != vb for *_, va, vb in differ),
               "correct_alone": sum(judge(r) for (*_, judge), r in zip(asked, alone)),
               "correct_batched": sum(judge(r) for (*_, judge), r in zip(asked, together)),
               "seconds_alone": round(timed[1][1], 1), "seconds_batched": round(timed[args.batch][1], 1)}
    print(json.dumps(summary, indent=1))
    if args.out:
        rows = [{"prompt": what, "alone": a, "batched": b, "correct_alone": va, "correct_batched": vb}
                for what, a, b, va, vb in differ]
        Path(args.out).write_text(json.dumps({"summary": summary, "differ": rows}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
