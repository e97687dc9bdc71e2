"""The worked warm start alone: what the engine's solutions teach before any GRPO step.

    python bench/warm_start.py --seed 0                  # seven families, 128 tasks: ~15 minutes on one core
    python bench/warm_start.py --seeds 3 --out w.json    # seeds 0, 1, 2 in turn: judges a change worth a few prompts
    python bench/warm_start.py --prompts 16 --eval-n-per-cell 2 --paraphrases 12      # a pipeline check
    python bench/warm_start.py --from-raw s0.json s12.json --out w.json   # seeds run side by side, joined

The embedded model gets a fresh LoRA adapter (seeded) and one epoch of fine-tuning on the worked solutions
(alice_app/tasks/solutions.py) of ``--prompts`` training tasks in all their wordings, with a recipe's learning
rate and prompt shares (default: examples/recipes/negation_repair.yaml, with ``--families`` and ``--set``
on top); then the held-out report (accuracy, control twins, distraction penalty, shortcuts) and the
hand-written paraphrase set, greedy. It is the learning bench's "after the warm start" point without the
hunt, the GRPO steps and the other measurements, so a change to how the working is written can be judged in
minutes: run it on both commits with the same seeds. One seed cannot judge a change worth 2-3 of the 66
paraphrases (a change to one family's working flips as many paraphrases of other ideas as a new seed does), so
``--seeds N`` runs N seeds in turn and adds each figure's mean and min-max over them. Prints a JSON summary;
``--out`` also keeps the replies.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

RECIPE = ROOT / "examples" / "recipes" / "negation_repair.yaml"


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=0, help="seeds the tasks taught and the LoRA init")
    parser.add_argument("--seeds", type=int, default=1, help="run seeds --seed .. --seed + N - 1 in turn")
    parser.add_argument("--prompts", type=int, default=128, help="training tasks whose worked solutions are taught")
    parser.add_argument("--eval-n-per-cell", type=int, default=10, help="held-out tasks per family x level")
    parser.add_argument("--paraphrases", type=int, default=0, help="score N paraphrases spread over the set (0: all)")
    parser.add_argument("--families", nargs="+", help="default: the core families + plain_arithmetic")
    parser.add_argument("--config", default=str(RECIPE), metavar="RECIPE.yaml", help="TrainConfig settings")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE", dest="overrides",
                        help="a TrainConfig setting on top of the recipe (repeatable)")
    parser.add_argument("--out", help="write the summary and the paraphrase replies to this JSON file")
    parser.add_argument("--from-raw", nargs="+", metavar="RAW.json", help="measure nothing: join the seeds of "
                        "earlier --out files (run side by side) and recompute the figures across them")
    args = parser.parse_args(argv)
    missing = [raw for raw in args.from_raw or () if not Path(raw).is_file()]
    if missing:
        parser.error(f"--from-raw: no such file: {', '.join(missing)}")
    if min(args.prompts, args.eval_n_per_cell, args.seeds) < 1 or args.paraphrases < 0:
        parser.error("--prompts, --eval-n-per-cell and --seeds must be >= 1, --paraphrases >= 0")
    try:
        args.configs = [train_config(args, seed) for seed in range(args.seed, args.seed + args.seeds)]
        if args.out:
            from bench.experiment import check_out_file

            check_out_file(args.out)
    except ValueError as exc:
        parser.error(str(exc))
    return args


def train_config(args: argparse.Namespace, seed: int):
    """The recipe, the ``--set`` pairs, the families and ``seed``, validated (before anything loads)."""
    from alice_app.training.config import TrainConfig
    from bench.learning import check_families, shared_settings

    check_families(args.families)
    values = shared_settings(args.overrides, args.families, args.config)
    values.update(seed=seed, warm_start_prompts=args.prompts, warm_start_source="worked",
                  families=list(args.families or ()))
    return TrainConfig.from_dict(values)


def warm_started(model: Any, tokenizer: Any, config) -> tuple[Any, Any]:
    """(``model`` with a fresh LoRA adapter fine-tuned on the worked solutions of ``config.warm_start_prompts``
    training tasks of its families, as training asks them; the warm start's report)."""
    from peft import get_peft_model

    from alice_app.training.prompts import training_messages
    from alice_app.training.warm_start import run_worked_start, warm_start_items

    model = get_peft_model(model, config.lora_config())
    items = warm_start_items(config.training_families(), config.warm_start_prompts, config.seed,
                             training_messages(config.no_format_share, config.rephrase_share, config.wording_share))
    return model, run_worked_start(model, tokenizer, items, learning_rate=config.fine_tune_learning_rate,
                                   twins=config.warm_start_twins)


def run(args: argparse.Namespace, config) -> dict:
    """One seed (``config``): teach, then measure."""
    from transformers import set_seed

    from alice_app.config import Settings
    from alice_app.evaluation import mean_accuracy
    from alice_app.training.evaluate import eval_policy
    from alice_app.training.runner import load_training_model
    from bench.experiment import held_out_and_paraphrases

    settings = Settings.from_env()
    families = config.training_families()
    set_seed(config.seed)
    model, tokenizer = load_training_model(settings, config)
    model, report = warm_started(model, tokenizer, config)
    started = time.perf_counter()
    with eval_policy(model, tokenizer, settings) as policy:
        held, said = held_out_and_paraphrases(policy, families, args.eval_n_per_cell, config.eval_max_tokens,
                                              args.paraphrases)
    return {"seed": config.seed, "families": families, "prompts": config.warm_start_prompts,
            "eval_n_per_cell": args.eval_n_per_cell, "eval_max_tokens": config.eval_max_tokens,
            "warm_start": report.as_metrics(), "measure_seconds": round(time.perf_counter() - started, 1),
            "accuracy": held["accuracy"], "control": held["control"], "mean_penalty": held["mean_penalty"],
            "mean_accuracy": mean_accuracy(held["accuracy"]), "shortcuts": held["shortcuts"],
            "paraphrases": {key: value for key, value in said.items() if key != "replies"},
            "replies": said["replies"]}


SUMMED_UP = {"paraphrases_correct": ("paraphrases", "correct"), "paraphrases_echo": ("paraphrases", "echo_distractor"),
             "mean_accuracy": ("mean_accuracy",), "mean_penalty": ("mean_penalty",),
             "parity_odd": ("paraphrases", "negation_parity", "by_idea", "odd_negations"),
             "parity_even": ("paraphrases", "negation_parity", "by_idea", "even_negations")}


def across_seeds(runs: list[dict]) -> dict:
    """Mean and min-max over the seeds of the figures a change is judged by."""
    from bench.learning_report import stats

    def pick(run: dict, path: tuple) -> float | None:
        for key in path:
            run = run.get(key) if isinstance(run, dict) else None
        return run

    return {name: stats([pick(run, path) for run in runs]) for name, path in SUMMED_UP.items()}


def joined_runs(raws: list[str]) -> list[dict]:
    """The seeds of earlier ``--out`` files, in order; a seed that two files hold is refused."""
    runs = [run for raw in raws for run in json.loads(Path(raw).read_text(encoding="utf-8"))["runs"]]
    seeds = [run["seed"] for run in runs]
    if len(set(seeds)) != len(seeds):
        raise SystemExit(f"--from-raw: a seed appears twice across the files (seeds {seeds})")
    return runs


def summed_up(runs: list[dict], out: str | None) -> dict:
    """The runs and their figures across seeds, written to ``out`` when given."""
    result = {"across_seeds": across_seeds(runs), "runs": runs}
    if out:
        Path(out).write_text(json.dumps(result, indent=1), encoding="utf-8")
    return result


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.from_raw:
        result = summed_up(joined_runs(args.from_raw), args.out)
    else:
        runs: list[dict] = []
        for config in args.configs:
            runs.append(run(args, config))
            result = summed_up(runs, args.out)  # after every seed, so a stopped run keeps what it measured
    brief = {"across_seeds": result["across_seeds"],
             "runs": [{key: value for key, value in run.items() if key != "replies"} for run in result["runs"]]}
    print(json.dumps(brief, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
