"""Mutation operators for the adversarial hunt: move a task one step along one axis.

A mutant keeps the family, level and seed and changes one structural param (how the negation is
worded, how many distractors, operand size, where the NOT-clause sits), so a failure that survives
the change maps the boundary of a failure mode. Answers are recomputed by the family's code.
"""
from __future__ import annotations

from dataclasses import replace
from random import Random

from alice_app.config import TRAIN_SEED_LIMIT
from alice_app.tasks.registry import generate_task, get_family
from alice_app.types import Task

# "numbers" (same structure, new seed) is the fallback for families with no other axis.
MUTATION_AXES: tuple[str, ...] = ("negation_form", "distractors", "operand_digits", "clause_position", "phrasing",
                                  "wording", "numbers")


def available_axes(task: Task) -> list[str]:
    choices = get_family(task.family).choices
    return [axis for axis in MUTATION_AXES if len(choices.get(axis, ())) > 1]


def mutate(task: Task, rng: Random) -> Task:
    """A valid task of the same family differing from ``task`` along one axis (recorded in metadata)."""
    family = get_family(task.family)
    structure = {k: v for k, v in dict(task.metadata.get("params") or {}).items() if k in family.params}
    axes = available_axes(task)
    seed = task.seed
    if axes:
        axis = rng.choice(axes)
        before = structure.get(axis)
        after = rng.choice([value for value in family.choices[axis] if value != before])
        structure[axis] = after
    else:
        axis, before, after = "numbers", task.seed, rng.randrange(TRAIN_SEED_LIMIT)
        seed = after
    mutant = generate_task(task.family, task.level, seed, **structure)
    mutation = {"axis": axis, "from": before, "to": after}
    return replace(mutant, metadata={**mutant.metadata, "mutation": mutation, "parent_id": task.id})
