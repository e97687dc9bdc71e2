"""The warm start: before the first GRPO step, the policy is fine-tuned on correct answers.

Two sources (``TrainConfig.warm_start_source``). ``samples``, rejection sampling: the policy answers
``warm_start_prompts`` training prompts (uniform over the run's families × levels,
asked as training asks them) ``num_generations`` times each, at the GRPO temperature. The verifier
keeps a completion only when it is correct and its final answer agrees with its own last computed
result (so "6 + 6 = 12. The answer is 6" is never taught); at most ``KEEP_PER_PROMPT`` distinct
completions per prompt, so tasks the model already solves every time do not fill the set. One epoch
of supervised fine-tuning on those completions (loss on the completion only) moves the LoRA weights
before GRPO starts, where fewer groups are then all wrong. It runs inside ``trainer.train()`` (a
callback on the first ``on_train_begin``), so its time counts as training time; a resumed run skips
it (the checkpoint already holds it).

``worked``: the engine writes the answers. Each of ``warm_start_prompts`` training tasks is asked in every
wording its family offers (its own, another phrasing, a free composition; the template wording keeps the
"Answer: <number>" line, the others lose it), and the completion is the engine's solution
(``alice_app.tasks.solutions``: the working, one operation a line restating the expression, "1 + 8 × 5 = 1 + 40",
"1 + 40 = 41", then
"Answer: 41"): the question's operands, never a distractor, in any wording. Nothing is sampled, so it
costs only the fine-tuning (about a minute for 25 tasks on a CPU).

Repairs (``warm_start_repairs``, co-evolving feed): that many more tasks, fresh variants of the failure bank's
unrepaired failures in the run's families (same template, new numbers), each failure in turn; each is asked as
its failure was (the family's wording with the format line) and taught once. The failed task itself never is.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from random import Random
from typing import Any, Callable, Mapping, Sequence

from alice_app.config import TRAIN_SEED_LIMIT
from alice_app.shortcuts import contradicts_own_result
from alice_app.tasks.registry import control_of, has_control
from alice_app.tasks.repair import pick_failures, same_template_variant, unrepaired_rows
from alice_app.tasks.solutions import worked_solution
from alice_app.training.feed import FeedItem, static_items
from alice_app.training.prompts import format_free, task_messages, training_messages, wordings
from alice_app.training.stopwatch import Stopwatch
from alice_app.types import Task

KEEP_PER_PROMPT = 2  # distinct correct completions kept per prompt
BATCH_SIZE = 4  # completions per optimizer step of the fine-tuning
SEED_OFFSET = 7_919  # the warm start's tasks are not the static arm's first prompts
REPAIR_SEED_OFFSET = 104_729  # the repair variants' seeds: another stream than the uniform tasks'


@dataclass(frozen=True)
class Example:
    messages: tuple[dict, ...]
    completion: str


@dataclass(frozen=True)
class WarmStartReport:
    prompts: int
    samples: int
    correct: int
    kept: int
    steps: int
    mean_loss: float | None
    seconds: float
    cpu_seconds: float  # of this process's threads: what a machine busy with other work does not inflate

    def as_metrics(self) -> dict[str, float]:
        """The report under ``warm_start_*`` names, for the run's metrics (recorded at step 0)."""
        return {f"warm_start_{key}": float(value) for key, value in asdict(self).items() if value is not None}


def keep_correct(items: Sequence[FeedItem], completions: Sequence[Sequence[str]], verifier: Any,
                 per_prompt: int = KEEP_PER_PROMPT) -> tuple[list[Example], int]:
    """(examples, correct): the distinct correct, self-consistent completions of each item, at most
    ``per_prompt`` of them, and how many completions were correct in all."""
    examples, correct = [], 0
    for item, texts in zip(items, completions):
        kept: list[str] = []
        for text in texts:
            verdict = verifier.verify(item.task, text)
            if not verdict.is_correct:
                continue
            correct += 1
            if text not in kept and len(kept) < per_prompt and not contradicts_own_result(text, verdict.extracted):
                kept.append(text)
        examples.extend(Example(item.messages, text) for text in kept)
    return examples, correct


def item_examples(item: FeedItem, twins: float = 0.0) -> list[Example]:
    """What the worked warm start teaches for one item: a repair as its failure was asked, any other task
    in every wording (``worked_examples``); then, for a ``twins`` share of the deceptive tasks, their control
    twin (``twin_example``)."""
    taught = ([Example(item.messages, worked_solution(item.task))] if item.source == "repair"
              else worked_examples([item.task]))
    return taught + ([twin_example(item.task)] if teaches_twin(item.task, twins) else [])


def teaches_twin(task: Task, share: float) -> bool:
    """Whether ``task`` (a deceptive one) has its control twin taught beside it: a fixed draw per task id, so
    the same tasks get one in every run and a larger share adds to a smaller one's."""
    return share > 0 and has_control(task.family) and Random(task.id).random() < share


def twin_example(task: Task) -> Example:
    """``task``'s control twin (same question and numbers, no deception) in its family's wording, worked."""
    twin = control_of(task)
    return Example(tuple(task_messages(twin)), worked_solution(twin))


def worked_examples(tasks: Sequence[Task]) -> list[Example]:
    """Each task in each of its wordings (the first with the format line, the others without), answered by
    the engine's ``worked_solution``."""
    examples = []
    for task in tasks:
        completion = worked_solution(task)
        for index, variant in enumerate(wordings(task)):
            messages = task_messages(variant)
            examples.append(Example(tuple(messages if index == 0 else format_free(messages)), completion))
    return examples


def warm_start_items(families: Sequence[str], n: int, seed: int,
                     build_messages: Callable[[Task], Sequence[dict]],
                     failures: Sequence[Mapping[str, Any]] = (), repairs: int = 0) -> list[FeedItem]:
    """``n`` training prompts uniform over ``families`` × levels (the same for every feed of a seed) and
    ``repairs`` fresh variants of ``failures`` (bank rows; see ``repair_items``), shuffled together."""
    uniform = static_items(families, n, seed + SEED_OFFSET, build_messages)
    repaired = repair_items(failures, families, repairs, seed)
    if not repaired:
        return uniform
    items = uniform + repaired
    Random(seed + SEED_OFFSET).shuffle(items)
    return items


def repair_items(failures: Sequence[Mapping[str, Any]], families: Sequence[str], n: int, seed: int) -> list[FeedItem]:
    """``n`` fresh variants (same template, new training seed) of the distinct unrepaired failed tasks of
    ``families`` in ``failures``, each task in turn, ordered by ``pick_failures`` (unrepaired, frequent and
    recent first), each asked as its failure was (``task_messages``); none when there is no such failure.
    The failed task itself is never taught."""
    distinct: dict[str, Mapping[str, Any]] = {}
    for row in unrepaired_rows(failures, families):
        distinct.setdefault(row["task"]["id"], row)
    if not distinct or n <= 0:
        return []
    rng = Random(seed + REPAIR_SEED_OFFSET)
    order = pick_failures(list(distinct.values()), len(distinct), rng)
    items = []
    for index in range(n):
        row = order[index % len(order)]
        task = same_template_variant(Task.from_dict(row["task"]), rng.randrange(TRAIN_SEED_LIMIT))
        items.append(FeedItem(task=task, source="repair", messages=tuple(task_messages(task)),
                              failure_id=int(row["id"])))
    return items


def lora_optimizer(model: Any, learning_rate: float) -> Any:
    """AdamW over the trainable (LoRA) weights of ``model``."""
    import torch

    params = [p for p in model.parameters() if p.requires_grad]
    if not params:
        raise ValueError("fine-tuning needs trainable (LoRA) weights; the model has none")
    return torch.optim.AdamW(params, lr=learning_rate)


def fine_tune(model: Any, tokenizer: Any, examples: Sequence[Example], learning_rate: float,
              should_stop: Callable[[], bool] = lambda: False, optimizer: Any = None) -> list[float]:
    """One epoch of next-token loss on each example's completion (the prompt is context only), in
    batches of ``BATCH_SIZE``, with AdamW over the trainable (LoRA) weights (``optimizer`` when given, so
    repeated calls share its moments; else a fresh one at ``learning_rate``); the per-step losses."""
    optimizer = optimizer or lora_optimizer(model, learning_rate)
    was_training = model.training
    model.train()
    losses = []
    try:
        for start in range(0, len(examples), BATCH_SIZE):
            if should_stop():
                break
            loss = completion_loss(model, encode_batch(tokenizer, examples[start:start + BATCH_SIZE], model.device))
            loss.backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            losses.append(float(loss.detach()))
    finally:
        model.train(was_training)
    return losses


def completion_loss(model: Any, batch: Mapping[str, Any], share_prefix: bool = True) -> Any:
    """The mean next-token cross-entropy over the completion tokens of ``batch`` (``encode_batch``), the loss
    the model computes from ``labels``, but with the vocabulary projection run only at the positions that
    predict a completion token (a fifth of them in the warm start's batches, ``bench/fine_tuning.py``), not at the
    prompt's and the padding's. With ``share_prefix``, the tokens every row begins with (the system prompt and
    the user turn's header) run once for the batch (``alice_app.training.shared_prefix``): the same loss and
    gradients, to float rounding, for less work."""
    import torch

    from alice_app.training.shared_prefix import prefix_cache, shared_prefix_length

    ids, mask, targets = batch["input_ids"], batch["attention_mask"], batch["labels"][:, 1:]
    predicts = torch.nn.functional.pad(targets != -100, (0, 1), value=False)  # position t predicts token t + 1
    prefix = shared_prefix_length(ids, batch["labels"], mask) if share_prefix else 0
    cache = prefix_cache(model, ids, mask, prefix) if prefix else None
    logits = model(input_ids=ids[:, prefix:], attention_mask=mask, cache=cache, use_cache=cache is not None,
                   logits_to_keep=predicts[:, prefix:]).logits
    return torch.nn.functional.cross_entropy(logits.float(), targets[targets != -100])


def encode_batch(tokenizer: Any, examples: Sequence[Example], device: Any) -> dict[str, Any]:
    """input_ids, attention_mask and labels (-100 on the prompt and the padding), right-padded."""
    import torch

    from alice_app.models.local import render_chat

    rows = []
    for example in examples:
        prompt = tokenizer(render_chat(tokenizer, list(example.messages)), add_special_tokens=False)["input_ids"]
        answer = tokenizer(example.completion, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]
        rows.append((prompt + answer, [-100] * len(prompt) + answer))
    width = max(len(ids) for ids, _ in rows)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    ids = [row + [pad] * (width - len(row)) for row, _ in rows]
    labels = [label + [-100] * (width - len(label)) for _, label in rows]
    mask = [[1] * len(row) + [0] * (width - len(row)) for row, _ in rows]
    return {name: torch.tensor(value, device=device) for name, value in
            (("input_ids", ids), ("attention_mask", mask), ("labels", labels))}


def run_warm_start(model: Any, tokenizer: Any, verifier: Any, settings: Any, items: Sequence[FeedItem], *,
                   num_generations: int, temperature: float, max_tokens: int, learning_rate: float,
                   should_stop: Callable[[], bool] = lambda: False) -> WarmStartReport:
    """Sample, keep the correct completions, fine-tune on them; what it did and how long it took."""
    from alice_app.training.evaluate import eval_policy

    clock = Stopwatch()
    completions: list[list[str]] = []
    with eval_policy(model, tokenizer, settings, batch_size=num_generations) as policy:
        for item in items:  # one prompt at a time, so a stop request is seen within one prompt
            if should_stop():
                break
            completions.extend(policy.generate([list(item.messages)], n=num_generations, temperature=temperature,
                                               max_tokens=max_tokens))
    examples, correct = keep_correct(items, completions, verifier)
    losses = fine_tune(model, tokenizer, examples, learning_rate, should_stop) if examples else []
    return WarmStartReport(prompts=len(completions), samples=sum(map(len, completions)), correct=correct,
                           kept=len(examples), steps=len(losses),
                           mean_loss=sum(losses) / len(losses) if losses else None,
                           seconds=clock.seconds(), cpu_seconds=clock.cpu_seconds())


def run_worked_start(model: Any, tokenizer: Any, items: Sequence[FeedItem], *, learning_rate: float,
                     twins: float = 0.0, should_stop: Callable[[], bool] = lambda: False) -> WarmStartReport:
    """Fine-tune on the engine's worked solutions of ``items`` (``item_examples``, with a ``twins`` share of
    control twins); nothing is sampled."""
    examples = [example for item in items for example in item_examples(item, twins)]
    return teach(model, tokenizer, examples, learning_rate, prompts=len(items), should_stop=should_stop)


def teach(model: Any, tokenizer: Any, examples: Sequence[Example], learning_rate: float, *, prompts: int,
          should_stop: Callable[[], bool] = lambda: False) -> WarmStartReport:
    """``fine_tune`` on given ``examples`` (written for ``prompts`` prompts, none sampled), and its report."""
    clock = Stopwatch()
    losses = fine_tune(model, tokenizer, examples, learning_rate, should_stop)
    return WarmStartReport(prompts=prompts, samples=0, correct=0, kept=len(examples), steps=len(losses),
                           mean_loss=sum(losses) / len(losses) if losses else None,
                           seconds=clock.seconds(), cpu_seconds=clock.cpu_seconds())


def warm_start_callback(services: Any, config: Any, tokenizer: Any, families: Sequence[str],
                        on_report: Callable[[WarmStartReport], None],
                        on_phase: Callable[[str], None] = lambda phase: None,
                        should_stop: Callable[[], bool] = lambda: False) -> Any:
    """The trainer callback of ``config``'s warm start (``config.warm_start_prompts`` prompts)."""
    from alice_app.training.callbacks import at_fresh_start

    repairs = config.warm_start_repair_count
    items = warm_start_items(families, config.warm_start_prompts, config.seed,
                             training_messages(config.no_format_share, config.rephrase_share, config.wording_share),
                             failures=services.bank.repair_candidates() if repairs else (), repairs=repairs)

    def start(model: Any) -> WarmStartReport:
        on_phase("warm-start")
        if config.warm_start_source == "worked":
            report = run_worked_start(model, tokenizer, items, learning_rate=config.fine_tune_learning_rate,
                                      twins=config.warm_start_twins, should_stop=should_stop)
        else:
            report = run_warm_start(model, tokenizer, services.verifier, services.settings, items,
                                    num_generations=config.num_generations, temperature=config.temperature,
                                    max_tokens=config.max_completion_length, learning_rate=config.fine_tune_learning_rate,
                                    should_stop=should_stop)
        on_phase("training")
        return report

    return at_fresh_start(start, on_report)
