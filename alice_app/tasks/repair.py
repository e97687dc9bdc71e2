"""Repair synthesis: choose banked failures and build fresh tasks that exercise the same weakness.

A failure is repaired by solving *new* variants of it (same template, new numbers), so the model
learns the logic rather than one answer; a contrastive variant also quotes the earlier wrong answer.
"""
from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction
from random import Random
from typing import Any, Mapping, Sequence

from alice_app.config import TRAIN_SEED_LIMIT
from alice_app.tasks._common import ANSWER_FORMAT, task_id
from alice_app.tasks.registry import generate_task, get_family
from alice_app.types import Task

UNREPAIRED_WEIGHT = 4.0  # an unrepaired failure is this many times likelier to be picked
MAX_QUOTED_CHARS = 40
_SEED_TRIES = 50


def failure_weight(row: Mapping[str, Any], recency_rank: int, rows: int) -> float:
    """Weight of one bank row of ``rows``: unrepaired, frequent and recent failures come first."""
    unrepaired = 1.0 if row.get("repaired") else UNREPAIRED_WEIGHT
    frequency = 1.0 + math.log1p(max(int(row.get("times_seen") or 1), 1))
    recency = 1.0 + recency_rank / max(rows - 1, 1)  # 1 for the oldest, 2 for the newest
    return unrepaired * frequency * recency


def pick_failures(failures: Sequence[Mapping[str, Any]], k: int, rng: Random) -> list[Mapping[str, Any]]:
    """Up to ``k`` distinct rows, sampled without replacement by ``failure_weight``.

    Deterministic for a given ``rng`` state and set of rows (Efraimidis–Spirakis keys): the rows are first put
    in bank order (id), and recency is each row's place in the order of (``last_seen``, id), so two runs that
    recorded the same failures in the same order pick the same rows however their clocks' milliseconds fell.
    """
    if k < 0:
        raise ValueError(f"k must be zero or more; got {k}")
    failures = sorted(failures, key=_row_id)
    seen = sorted(range(len(failures)), key=lambda i: (str(failures[i].get("last_seen") or ""), _row_id(failures[i])))
    rank = {i: position for position, i in enumerate(seen)}
    keyed = []
    for i, row in enumerate(failures):
        weight = failure_weight(row, rank[i], len(failures))
        keyed.append((rng.random() ** (1.0 / weight), i))
    keyed.sort(reverse=True)
    return [failures[i] for _, i in keyed[:k]]


def _row_id(row: Mapping[str, Any]) -> int:
    try:
        return int(row.get("id") or 0)
    except (TypeError, ValueError):
        return 0


def unrepaired_rows(rows: Sequence[Mapping[str, Any]], families: Sequence[str]) -> list[Mapping[str, Any]]:
    """The bank rows of ``families`` not marked repaired."""
    return [row for row in rows if row["family"] in families and not row["repaired"]]


def repair_variant(row: Mapping[str, Any], rng: Random) -> Task:
    """A fresh task that repairs bank row ``row``: its template with new numbers (a training seed from
    ``rng``), or, half the time when the row kept the wrong answer, a contrastive variant that quotes it."""
    original = Task.from_dict(row["task"])
    seed = rng.randrange(TRAIN_SEED_LIMIT)
    if rng.random() < 0.5 and row.get("extracted"):
        return contrastive_variant(original, str(row["extracted"]), seed)
    return same_template_variant(original, seed)


def _structure(task: Task) -> dict[str, Any]:
    """The task's structural params (template, wording, ...) that its family accepts."""
    accepted = get_family(task.family).params
    return {k: v for k, v in dict(task.metadata.get("params") or {}).items() if k in accepted}


def _fresh_variant(task: Task, seed: int, avoid_answer: str | None = None) -> Task:
    """Same family, level and structure with new numbers: seeds from ``seed`` on, skipping any that
    reproduce the original prompt (or, for contrast, whose answer equals the quoted wrong one)."""
    structure = _structure(task)
    variant = None
    for offset in range(_SEED_TRIES):
        variant = generate_task(task.family, task.level, seed + offset, **structure)
        if variant.prompt != task.prompt and variant.answer != avoid_answer:
            return variant
    return variant  # a tiny answer space (e.g. a count); still a valid task


def same_template_variant(failure_task: Task, seed: int) -> Task:
    variant = _fresh_variant(failure_task, seed)
    return replace(variant, metadata={**variant.metadata, "repair_of": failure_task.id})


def _quotable(wrong_answer: str | None) -> str:
    text = " ".join(str(wrong_answer or "").split())
    if not text:
        raise ValueError("contrastive_variant needs the earlier wrong answer; got an empty one")
    return text if len(text) <= MAX_QUOTED_CHARS else text[: MAX_QUOTED_CHARS - 1] + "…"


def _as_number(text: str) -> int | None:
    try:
        value = Fraction(text)
    except (ValueError, ZeroDivisionError):
        return None
    return int(value) if value.denominator == 1 else None


def contrastive_variant(failure_task: Task, wrong_answer: str, seed: int) -> Task:
    """A fresh variant whose prompt first shows the earlier question and its wrong answer."""
    wrong = _quotable(wrong_answer)
    variant = _fresh_variant(failure_task, seed, avoid_answer=wrong)
    earlier = failure_task.prompt.removesuffix("\n" + ANSWER_FORMAT).strip()
    prompt = (f'A previous attempt at a similar question answered {wrong}, which was wrong. That '
              f'question was: "{earlier}"\nNow solve this new question carefully.\n{variant.prompt}')
    number = _as_number(wrong)
    metadata = {**variant.metadata, "repair_of": failure_task.id, "contrastive": True,
                "quoted_wrong_answer": wrong,
                "distractors": list(variant.metadata.get("distractors", [])) + ([number] if number is not None else [])}
    params = {**_structure(failure_task), "contrast": wrong}
    hint = variant.hint + " The quoted answer belongs to the earlier question and was wrong; do not reuse its reasoning."
    return replace(variant, id=task_id(variant.family, variant.level, variant.seed, params), prompt=prompt,
                   hint=hint, metadata=metadata)
