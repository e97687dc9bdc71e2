"""Helpers every family shares: the answer format, ids, parameter resolution and validation."""
from __future__ import annotations

import hashlib
import json
from fractions import Fraction
from random import Random
from typing import Any, Mapping, Sequence

from alice_app.numbers import canonical  # noqa: F401  (the one normal form; controls.py imports it from here)
from alice_app.types import Task

# One answer format for every family, so the verifier and the prompts never disagree.
ANSWER_FORMAT = 'End your reply with a final line of the form "Answer: <number>".'

CLAUSE_POSITIONS = ("start", "end")


def task_id(family: str, level: str, seed: int, params: Mapping[str, Any]) -> str:
    base = f"{family}/{level}/{seed}"
    if not params:
        return base
    blob = json.dumps(dict(params), sort_keys=True, default=str)
    return f"{base}#{hashlib.sha1(blob.encode()).hexdigest()[:8]}"


def make_task(family: str, level: str, seed: int, overrides: Mapping[str, Any], *, question: str,
              answer: int | Fraction, hint: str, metadata: Mapping[str, Any]) -> Task:
    return Task(
        id=task_id(family, level, seed, overrides),
        family=family,
        level=level,
        prompt=f"{question}\n{ANSWER_FORMAT}",
        answer=canonical(answer),
        hint=hint,
        seed=seed,
        metadata=dict(metadata),
    )


def resolve(rng: Random, options: Mapping[str, Sequence[Any]], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Draw every option, then apply overrides.

    Every option is drawn even when overridden, so the random stream (and so the numbers that
    follow) does not depend on which params were given: a mutant differs only along its axis.
    """
    drawn = {name: rng.choice(tuple(values)) for name, values in options.items()}
    return {**drawn, **overrides}


def check_choice(name: str, value: Any, allowed: Sequence[Any]) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(str, allowed))}; got {value!r}")


def check_int(name: str, value: Any, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} must be an integer from {low} to {high}; got {value!r}")


def check_operands(value: Any, count: int | None, limit: int = 10**6) -> tuple[int, ...]:
    """Operands given by hand: ``count`` integers (any count when None), each below ``limit``."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise ValueError(f"operands must be a list of integers; got {value!r}")
    if count is not None and len(value) != count:
        raise ValueError(f"this template takes {count} operands; got {len(value)}")
    for item in value:
        if isinstance(item, bool) or not isinstance(item, int) or abs(item) >= limit:
            raise ValueError(f"operands must be integers below {limit} in size; got {item!r}")
    return tuple(value)


def digits_range(digits: int) -> tuple[int, int]:
    """Positive integers with exactly ``digits`` digits (one digit: 1..9, never 0)."""
    return (1 if digits == 1 else 10 ** (digits - 1)), 10**digits - 1


def join_numbers(values: Sequence[int | str], conjunction: str = "and") -> str:
    """'3', '3 and 8', '3, 8 and 5' (or with ``conjunction`` "or": '3, 8 or 5'); options written as
    expressions join the same way ('3 + 4 or 3 × 4')."""
    words = [str(v) for v in values]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + f" {conjunction} " + words[-1]
