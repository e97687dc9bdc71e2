"""Held-out evaluation: accuracy per family × level, greedy, the unaided first attempt only.

Seeds start at ``HELD_OUT_SEED_START``; hunting and training draw seeds below
``TRAIN_SEED_LIMIT``, so no evaluated task was ever trained on. The policy sees exactly what it
sees at turn 1 of an episode (the same system prompt and task prompt), so "before/after training"
compares like with like. The verifier runs tier 1 only (no oracle, no sampling): the figures are
reproducible and cost one generation per task.

``evaluate_report`` adds each deceptive family's control twin (``tasks.control_of``: same numbers
and seeds, deception removed) and the distraction penalty = control accuracy − family accuracy,
the headline figure: it says how much of a failure the deception causes, not the arithmetic.
"""
from __future__ import annotations

from typing import Mapping, Sequence

from alice_app.config import EVAL_MAX_TOKENS, HELD_OUT_SEED_START
from alice_app.episode import new_episode
from alice_app.models.base import keeping_prompts
from alice_app.shortcuts import contradicts_own_result, echoes_prompt_number
from alice_app.tasks import control_of, default_families, has_control
from alice_app.tasks.registry import get_family, generate_task
from alice_app.tasks.wordings import check_wording, worded_families
from alice_app.types import LEVELS, Task

MAX_N_PER_CELL = 10_000
# The distraction penalty's headline levels: their arithmetic is in the control's reach.
HEADLINE_LEVELS = ("easy", "medium")


def held_out_tasks(families: Sequence[str], levels: Sequence[str], n_per_cell: int, seed_start: int,
                   wording: str = "template") -> list[Task]:
    """The same seeds for every cell, so cells differ only in family and level; ``wording="free"`` asks
    the same tasks (numbers, distractors, answers) in composed wordings instead of the templates."""
    params = {} if wording == "template" else {"wording": wording}
    return [generate_task(family, level, seed, **params)
            for family in families for level in levels
            for seed in range(seed_start, seed_start + n_per_cell)]


def evaluate(
    policy,
    families: Sequence[str] | None = None,
    n_per_cell: int = 20,
    seed_start: int = HELD_OUT_SEED_START,
    *,
    levels: Sequence[str] = LEVELS,
    max_tokens: int = EVAL_MAX_TOKENS,
    verifier=None,
    progress: bool = False,
    wording: str = "template",
) -> dict[str, dict[str, float]]:
    """``{"family": {"level": accuracy}}`` of ``policy``'s greedy first attempts on held-out tasks."""
    return evaluate_report(policy, families, n_per_cell, seed_start, levels=levels, max_tokens=max_tokens,
                           verifier=verifier, progress=progress, controls=False, wording=wording)["accuracy"]


def evaluate_report(policy, families: Sequence[str] | None = None, n_per_cell: int = 20,
                    seed_start: int = HELD_OUT_SEED_START, *, levels: Sequence[str] = LEVELS, max_tokens: int = EVAL_MAX_TOKENS,
                    verifier=None, progress: bool = False, controls: bool = True, wording: str = "template") -> dict:
    """Accuracy per cell, and with ``controls`` the control twins' accuracy on the same seeds, the
    distraction penalty (control − family) per cell and its mean, plus the shortcut shares.

    Keys: accuracy, control, penalty, mean_penalty (None without twins), shortcuts, and twins
    (family -> its twin's name, e.g. "false_claim_control"). ``wording="free"`` words every task freely
    (only the families in ``worded_families()``; their twins ask the same question without the distractor).
    """
    families = list(families) if families else (default_families() if wording == "template" else worded_families())
    check_eval_args(families, levels, n_per_cell, seed_start, wording)
    if verifier is None:
        from alice_app.verify.stack import VerifierStack

        verifier = VerifierStack()
    tasks = held_out_tasks(families, levels, n_per_cell, seed_start, wording)
    twins = [control_of(task) for task in tasks if has_control(task.family)] if controls else []
    unique = list({task.id: task for task in tasks + twins}.values())  # plain_arithmetic twins may repeat
    replies = dict(zip((t.id for t in unique), _generate(policy, unique, max_tokens, progress)))
    right = {task.id: bool(verifier.verify(task, replies[task.id]).is_correct) for task in unique}
    accuracy = _table(tasks, right, families, levels)
    report = {"accuracy": accuracy, "control": {}, "penalty": {}, "mean_penalty": None,
              "twins": {t.metadata["control_of"]: t.family for t in twins},
              "shortcuts": shortcut_shares([(t, replies[t.id], right[t.id]) for t in tasks])}
    if twins:
        control = _table(twins, right, [f for f in families if has_control(f)], levels, by_origin=True)
        penalty = {f: {lv: round(control[f][lv] - accuracy[f][lv], 4) for lv in levels} for f in control}
        report.update(control=control, penalty=penalty, mean_penalty=mean_accuracy(penalty))
    return report


def with_twins(report: dict) -> dict[str, dict[str, float]]:
    """The accuracy table plus one row per control twin, under the twin's name: the shape a
    training run stores as its before/after evaluation (the Charts tab reads the penalty from it)."""
    twins = {report["twins"][family]: row for family, row in report["control"].items()}
    return {**report["accuracy"], **twins}


def penalty_from_table(table: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """control − family per cell, for the families whose twin row is in ``table`` (see ``with_twins``)."""
    from alice_app.tasks.controls import twin_name

    return {f: {lv: round(table[twin][lv] - acc, 4) for lv, acc in row.items() if lv in table[twin]}
            for f, row in table.items() if (twin := twin_name(f)) in table}


def headline_penalties(penalty: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """Each family's distraction penalty, the mean of its ``HEADLINE_LEVELS`` cells (those present)."""
    means = {}
    for family, row in penalty.items():
        values = [row[level] for level in HEADLINE_LEVELS if level in row]
        if values:
            means[family] = sum(values) / len(values)
    return means


def headline_penalty(penalty: Mapping[str, Mapping[str, float]]) -> float | None:
    """The headline figure: the mean penalty over every family with a twin × ``HEADLINE_LEVELS``
    (None when no family has a twin)."""
    values = [row[level] for row in penalty.values() for level in HEADLINE_LEVELS if level in row]
    return sum(values) / len(values) if values else None


def _table(tasks: list[Task], right: dict[str, bool], families: Sequence[str], levels: Sequence[str],
           by_origin: bool = False) -> dict[str, dict[str, float]]:
    counts: dict[tuple[str, str], list[int]] = {}
    for task in tasks:
        family = task.metadata.get("control_of", task.family) if by_origin else task.family
        counts.setdefault((family, task.level), []).append(right[task.id])
    return {f: {lv: round(sum(counts[(f, lv)]) / len(counts[(f, lv)]), 4) for lv in levels} for f in families}


def shortcut_shares(judged: Sequence[tuple[Task, str, bool]]) -> dict[str, float | None]:
    """prompt_number: share of wrong answers that are another number of the prompt;
    self_contradiction: share of replies whose final answer differs from their own last computed result."""
    from alice_app.verify.extract import extract_answer

    wrong = echoed = contradicted = 0
    for task, reply, correct in judged:
        extracted = extract_answer(reply)
        contradicted += contradicts_own_result(reply, extracted)
        if not correct and extracted is not None:
            wrong += 1
            echoed += echoes_prompt_number(task.prompt.split("\n")[0], extracted, task.answer)
    return {"prompt_number": round(echoed / wrong, 4) if wrong else None,
            "self_contradiction": round(contradicted / len(judged), 4) if judged else None}


def mean_accuracy(table: dict[str, dict[str, float]]) -> float | None:
    values = [accuracy for row in table.values() for accuracy in row.values()]
    return round(sum(values) / len(values), 4) if values else None


def _generate(policy, tasks: list[Task], max_tokens: int, progress: bool, chunk: int = 32) -> list[str]:
    """Greedy first attempts, in chunks so the progress bar moves and memory stays bounded; the policy keeps
    the prompts meanwhile (``keeping_prompts``: every chat begins with the same system prompt)."""
    from tqdm.auto import tqdm

    replies: list[str] = []
    with tqdm(total=len(tasks), desc="eval", unit="task", disable=not progress) as bar, keeping_prompts(policy):
        for start in range(0, len(tasks), chunk):
            part = tasks[start : start + chunk]
            chats = [new_episode(task).messages() for task in part]
            replies += [row[0] for row in policy.generate(chats, n=1, temperature=0.0, max_tokens=max_tokens)]
            bar.update(len(part))
    return replies


def check_eval_args(families: list[str], levels: Sequence[str], n_per_cell: int, seed_start: int,
                    wording: str = "template") -> None:
    for family in families:
        get_family(family)  # raises ValueError naming the known families
    check_wording(wording, families)
    unknown = [level for level in levels if level not in LEVELS]
    if unknown:
        raise ValueError(f"unknown level {unknown[0]!r}; choose from: {', '.join(LEVELS)}")
    if not 1 <= n_per_cell <= MAX_N_PER_CELL:
        raise ValueError(f"--n-per-cell must be between 1 and {MAX_N_PER_CELL}, not {n_per_cell}")
    if seed_start < HELD_OUT_SEED_START:
        raise ValueError(f"evaluation seeds must be held out: start at {HELD_OUT_SEED_START} or above, "
                         f"not {seed_start} (training uses the seeds below)")
