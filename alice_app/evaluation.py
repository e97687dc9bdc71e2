"""Held-out evaluation: accuracy per family × level, greedy, the unaided first attempt only.

Seeds start at ``HELD_OUT_SEED_START``; hunting and training draw seeds below
``TRAIN_SEED_LIMIT``, so no evaluated task was ever trained on. The policy sees exactly what it
sees at turn 1 of an episode (the same system prompt and task prompt), so "before/after training"
compares like with like. The verifier runs tier 1 only (no oracle, no sampling): the figures are
reproducible and cost one generation per task.
"""
from __future__ import annotations

from typing import Sequence

from alice_app.config import HELD_OUT_SEED_START
from alice_app.episode import new_episode
from alice_app.tasks.registry import family_names, get_family, generate_task
from alice_app.types import LEVELS, Task

MAX_N_PER_CELL = 10_000


def default_families() -> list[str]:
    """Our own families (core + the plain-arithmetic control); reasoning-gym adapters are opt-in."""
    return [name for name in family_names() if get_family(name).scorer is None]


def held_out_tasks(families: Sequence[str], levels: Sequence[str], n_per_cell: int, seed_start: int) -> list[Task]:
    """The same seeds for every cell, so cells differ only in family and level."""
    return [generate_task(family, level, seed)
            for family in families for level in levels
            for seed in range(seed_start, seed_start + n_per_cell)]


def evaluate(
    policy,
    families: Sequence[str] | None = None,
    n_per_cell: int = 20,
    seed_start: int = HELD_OUT_SEED_START,
    *,
    levels: Sequence[str] = LEVELS,
    max_tokens: int = 64,
    verifier=None,
    progress: bool = False,
) -> dict[str, dict[str, float]]:
    """``{"family": {"level": accuracy}}`` of ``policy``'s greedy first attempts on held-out tasks."""
    families = list(families) if families else default_families()
    check_eval_args(families, levels, n_per_cell, seed_start)
    if verifier is None:
        from alice_app.verify.stack import VerifierStack

        verifier = VerifierStack()
    tasks = held_out_tasks(families, levels, n_per_cell, seed_start)
    replies = _generate(policy, tasks, max_tokens, progress)
    correct: dict[tuple[str, str], int] = {}
    for task, reply in zip(tasks, replies):
        key = (task.family, task.level)
        correct[key] = correct.get(key, 0) + bool(verifier.verify(task, reply).is_correct)
    return {family: {level: round(correct[(family, level)] / n_per_cell, 4) for level in levels}
            for family in families}


def mean_accuracy(table: dict[str, dict[str, float]]) -> float | None:
    values = [accuracy for row in table.values() for accuracy in row.values()]
    return round(sum(values) / len(values), 4) if values else None


def _generate(policy, tasks: list[Task], max_tokens: int, progress: bool, chunk: int = 32) -> list[str]:
    """Greedy first attempts, in chunks so the progress bar moves and memory stays bounded."""
    from tqdm.auto import tqdm

    replies: list[str] = []
    with tqdm(total=len(tasks), desc="eval", unit="task", disable=not progress) as bar:
        for start in range(0, len(tasks), chunk):
            part = tasks[start : start + chunk]
            chats = [new_episode(task).messages() for task in part]
            replies += [row[0] for row in policy.generate(chats, n=1, temperature=0.0, max_tokens=max_tokens)]
            bar.update(len(part))
    return replies


def check_eval_args(families: list[str], levels: Sequence[str], n_per_cell: int, seed_start: int) -> None:
    for family in families:
        get_family(family)  # raises ValueError naming the known families
    unknown = [level for level in levels if level not in LEVELS]
    if unknown:
        raise ValueError(f"unknown level {unknown[0]!r}; choose from: {', '.join(LEVELS)}")
    if not 1 <= n_per_cell <= MAX_N_PER_CELL:
        raise ValueError(f"--n-per-cell must be between 1 and {MAX_N_PER_CELL}, not {n_per_cell}")
    if seed_start < HELD_OUT_SEED_START:
        raise ValueError(f"evaluation seeds must be held out: start at {HELD_OUT_SEED_START} or above, "
                         f"not {seed_start} (training uses the seeds below)")
