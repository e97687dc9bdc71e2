"""DPO from the failure bank: (prompt, chosen, rejected) pairs as a Hugging Face dataset, and a
``DPOTrainer`` run on them.

rejected = the answer the model actually gave (a banked failure); chosen = a verified correct
answer: a sample of the policy that the verifier accepts when a policy is given, else the task's
exact answer written in the answer format. Either way the verifier checks ``chosen`` first.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from alice_app.training.config import TrainConfig
from alice_app.training.prompts import task_messages
from alice_app.types import Task


def constructed_answer(task: Task) -> str:
    return f"Answer: {task.answer}"


def dpo_pairs(bank: Any, verifier: Any, *, limit: int, families: Sequence[str] | None = None,
              policy: Any = None, samples: int = 4,
              filters: Mapping[str, Any] | None = None) -> Iterator[dict[str, Any]]:
    """Conversational DPO rows, one per distinct (task, wrong answer), most recent failures last;
    ``filters`` (FailureBank.query's keyword arguments) narrows the failures they come from."""
    seen: set[tuple[str, str]] = set()
    count = 0
    for row in bank.iter_rows(**(filters or {})):
        if count >= limit:
            return
        key = (row["task_id"], row["response"])
        if key in seen or (families and row["family"] not in families):
            continue
        seen.add(key)
        task = Task.from_dict(row["task"])
        chosen = verified_chosen(task, verifier, policy, samples)
        if chosen is None:
            continue
        count += 1
        yield {"prompt": task_messages(task), "chosen": [{"role": "assistant", "content": chosen}],
               "rejected": [{"role": "assistant", "content": row["response"]}],
               "task_id": task.id, "family": task.family, "level": task.level, "failure_id": row["id"]}


def verified_chosen(task: Task, verifier: Any, policy: Any = None, samples: int = 4) -> str | None:
    """A correct answer for ``task`` that the verifier accepts, or None when there is none."""
    candidates: list[str] = []
    if policy is not None:
        candidates += policy.generate([task_messages(task)], n=samples, temperature=1.0, max_tokens=64)[0]
    if task.answer.strip():  # an open-answer task (e.g. propositional_logic) has no reference to write
        candidates.append(constructed_answer(task))
    return next((c for c in candidates if verifier.verify(task, c).is_correct), None)


def export_dpo_dataset(bank: Any, verifier: Any, path: str | Path, *, limit: int = 10_000,
                       families: Sequence[str] | None = None, policy: Any = None,
                       filters: Mapping[str, Any] | None = None) -> int:
    """Write the pairs as JSONL (``datasets.load_dataset("json", data_files=path)`` reads it);
    returns how many were written. The file is replaced atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = path.with_suffix(path.suffix + ".tmp")
    count = 0
    with staging.open("w", encoding="utf-8") as handle:
        for pair in dpo_pairs(bank, verifier, limit=limit, families=families, policy=policy, filters=filters):
            handle.write(json.dumps(pair, ensure_ascii=False) + "\n")
            count += 1
    staging.replace(path)
    return count


def load_dpo_dataset(path: str | Path) -> Any:
    from datasets import load_dataset

    return load_dataset("json", data_files=str(path), split="train")


def build_dpo_trainer(services: Any, config: TrainConfig, model: Any, tokenizer: Any, output_dir: Path,
                      callbacks: list[Any]) -> Any:
    from trl import DPOTrainer

    path = Path(output_dir) / "dpo_pairs.jsonl"
    count = export_dpo_dataset(services.bank, services.verifier, path, limit=config.dpo_max_pairs,
                               families=config.families or None)
    if count == 0:
        raise ValueError("the failure bank holds no failures to build DPO pairs from; "
                         "run a hunt or a GRPO run first")
    dataset = load_dpo_dataset(path).select_columns(["prompt", "chosen", "rejected"])
    return DPOTrainer(model=model, args=config.to_dpo_config(str(output_dir)), train_dataset=dataset,
                      processing_class=tokenizer, peft_config=config.lora_config(), callbacks=callbacks)
