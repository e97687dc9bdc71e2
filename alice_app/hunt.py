"""Hunting: the policy plays full 5-turn episodes and every failure is banked.

Episodes run with continuous batching: ``batch_size`` environments are live at once, each turn is
one ``policy.generate`` call for all of them, and a finished episode's slot starts the next one. A local
policy keeps the prompts meanwhile, so each turn prefills only the reply and message the last one added.
The environment (not this module) writes failures to the bank and outcomes to the curriculum.

Two strategies choose what to play:
- ``random``: the curriculum's pick (weighted toward families near 50% accuracy) at each
  family's current level, on fresh training seeds;
- ``mutate``: an adversarial search in the spirit of Rainbow Teaming. Known failures (the bank,
  then the archive) are mutated along one axis (negation form, distractors, operand size, clause
  position); a mutant that still fails enters a quality-diversity archive keyed by
  (family, level, failure mode) when it fails at least as hard as the cell's incumbent. The
  per-axis survival rate maps the boundary of each failure mode;
- ``recheck``: the bank's unrepaired failures (newest first), each on ``RECHECK_VARIANTS`` fresh variants
  (same template, new numbers) played as repairs of its row, first attempt only (``RECHECK_TURNS``). The bank
  marks a failure repaired once that many variants were solved unaided, so a recheck after training marks
  what the model now solves beyond the exact numbers it failed; a variant answered wrong is banked, as
  any unsolved episode. It plays at most ``episodes`` (fewer when the bank holds fewer).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from random import Random
from typing import Callable, Iterator, Sequence

from alice_app.config import TRAIN_SEED_LIMIT
from alice_app.environment import REPAIR_REQUIRED, as_repair_of
from alice_app.failure_modes import label_failure
from alice_app.models.base import keeping_prompts
from alice_app.store.queries import MAX_PAGE_SIZE
from alice_app.tasks.mutate import mutate
from alice_app.tasks.registry import family_names
from alice_app.tasks.repair import same_template_variant
from alice_app.tasks.wordings import check_wording
from alice_app.types import TURN_KINDS, Task, Verdict

STRATEGIES = ("random", "mutate", "recheck")
RECHECK_VARIANTS = REPAIR_REQUIRED  # a recheck can mark a failure repaired in one pass
RECHECK_TURNS = 1  # a repair counts the unaided first attempt only, so a recheck plays no more
ARCHIVE_SHARE = 0.8  # how often a mutate parent comes from the archive rather than the bank
BANK_SEEDS = 200  # known failures read from the bank to start the mutate search

Start = Callable[[object], object]  # env -> first Observation (env.reset with some arguments)


@dataclass(frozen=True)
class EpisodeResult:
    task: Task
    solved: bool
    turns: int
    first_attempt_correct: bool
    failure_mode: str | None  # why the unaided first attempt was wrong; None when it was right
    failure_id: int | None  # the bank row, for an episode never solved
    confidence: float | None = None  # tier 3: agreement of k samples of the first attempt (samples > 1)
    unstable: bool = False  # the first attempt was right but the k samples disagree (banked as "unstable")
    first_response: str = ""  # the unaided first attempt
    repair_of: int | None = None  # the bank row this episode was a repair of
    repaired: bool = False  # that row is marked repaired now

    @property
    def fitness(self) -> float:
        """How hard the task beat the policy: the share of the five turns answered wrong."""
        wrong = self.turns if not self.solved else self.turns - 1
        return wrong / len(TURN_KINDS)


@dataclass
class ArchiveCell:
    elite: Task
    fitness: float
    hits: int = 1  # failing mutants that landed in this cell


@dataclass
class Archive:
    """Quality-diversity archive: one elite per (family, level, failure mode)."""

    cells: dict[tuple[str, str, str], ArchiveCell] = field(default_factory=dict)
    axis_tries: Counter = field(default_factory=Counter)
    axis_failures: Counter = field(default_factory=Counter)

    def add(self, result: EpisodeResult) -> bool:
        """Record a played task (a mutant, or a plain hunt task that seeds the search); True when
        it became its cell's elite."""
        axis = (result.task.metadata.get("mutation") or {}).get("axis")
        if axis:
            self.axis_tries[axis] += 1
        if result.first_attempt_correct:
            return False
        if axis:
            self.axis_failures[axis] += 1
        key = (result.task.family, result.task.level, result.failure_mode or "other")
        cell = self.cells.get(key)
        if cell is None:
            self.cells[key] = ArchiveCell(result.task, result.fitness)
            return True
        cell.hits += 1
        if result.fitness >= cell.fitness:  # ties move the elite: the search keeps walking the boundary
            cell.elite, cell.fitness = result.task, result.fitness
            return True
        return False

    def drop(self, task: Task) -> None:
        self.cells = {key: cell for key, cell in self.cells.items() if cell.elite.id != task.id}

    def elites(self) -> list[Task]:
        return [cell.elite for cell in self.cells.values()]


@dataclass
class HuntReport:
    strategy: str
    model_id: str
    results: list[EpisodeResult] = field(default_factory=list)
    archive: Archive | None = None

    @property
    def failures(self) -> int:
        return sum(not r.solved for r in self.results)

    def repair_outcomes(self) -> dict[int, bool]:
        """Each bank row the episodes were repairs of: whether it is marked repaired now."""
        rows: dict[int, bool] = {}
        for result in self.results:
            if result.repair_of is not None:
                rows[result.repair_of] = rows.get(result.repair_of, False) or result.repaired
        return rows

    def repairs(self) -> tuple[int, int]:
        """(bank rows now marked repaired, bank rows the episodes were repairs of)."""
        rows = self.repair_outcomes()
        return sum(rows.values()), len(rows)


def run_hunt(
    policy,
    services,
    episodes: int,
    families: Sequence[str] | None = None,
    strategy: str = "random",
    *,
    seed: int = 0,
    batch_size: int = 8,
    max_tokens: int = 64,
    temperature: float = 0.0,
    progress: bool = False,
    samples: int = 1,
    wording: str = "template",
) -> HuntReport:
    """Play ``episodes`` episodes with ``policy``; failures land in ``services.bank``.

    ``samples`` > 1 also draws that many sampled answers to each first attempt and hands them to the
    environment (tier 3): each result carries their agreement as ``confidence``, and the environment
    banks a right but unstable first attempt with the failure mode ``unstable``. ``wording="free"`` asks
    the random strategy's tasks in composed wordings where their family offers one."""
    if samples < 1:
        raise ValueError(f"--samples must be at least 1, not {samples}")
    families = check_hunt_args(episodes, families, strategy, batch_size, wording)
    rng = Random(seed)
    report = HuntReport(strategy, policy.model_id, archive=Archive() if strategy == "mutate" else None)
    if strategy == "mutate":
        starts = _mutate_starts(rng, families, report.archive, _bank_failures(services.bank, families))
    elif strategy == "recheck":
        plan = recheck_tasks(_unrepaired_rows(services.bank, families, -(-episodes // RECHECK_VARIANTS)), rng)
        if not plan:
            where = f" of {', '.join(families)}" if families else ""
            raise ValueError(f"the failure bank has no unrepaired failures{where} to recheck; hunt first")
        episodes = min(episodes, len(plan))
        starts = iter(recheck_starts(plan))
    else:
        starts = _random_starts(rng, families, wording)
    slots = min(batch_size, episodes)
    envs = [services.new_environment(seed=rng.randrange(TRAIN_SEED_LIMIT)) for _ in range(slots)]
    bar = _progress_bar(episodes, strategy, progress)
    played = play_episodes(policy, envs, starts, episodes, max_tokens=max_tokens, temperature=temperature,
                           samples=samples)
    for result in played:
        report.results.append(result)
        if report.archive is not None:
            report.archive.add(result)
        bar.update(1)
        bar.set_postfix(failures=report.failures)
    bar.close()
    return report


def play_episodes(policy, envs: list, starts: Iterator[Start], episodes: int, *, max_tokens: int = 64,
                  temperature: float = 0.0, samples: int = 1) -> Iterator[EpisodeResult]:
    """Yield each episode's result as it ends; one generate call per turn for all live envs. The policy keeps
    the prompts it is asked meanwhile (``keeping_prompts``), so each turn prefills only what the last turn added.

    With ``samples`` > 1, the first attempts of the turn also get that many sampled answers (one more
    batched call), which the environment turns into the tier-3 verdict."""
    with keeping_prompts(policy):
        yield from _play(policy, envs, starts, episodes, max_tokens, temperature, samples)


def _play(policy, envs: list, starts: Iterator[Start], episodes: int, max_tokens: int, temperature: float,
          samples: int) -> Iterator[EpisodeResult]:
    observations: dict[int, object] = {}
    started = 0
    while started < episodes or observations:
        for slot in range(len(envs)):
            if slot not in observations and started < episodes:
                observations[slot] = next(starts)(envs[slot])
                started += 1
        live = sorted(observations)
        replies = policy.generate([observations[s].messages for s in live], n=1,
                                  temperature=temperature, max_tokens=max_tokens)
        sampled = _first_attempt_samples(policy, observations, samples, max_tokens)
        for slot, reply in zip(live, replies):
            observations[slot] = envs[slot].step(reply[0], samples=sampled.get(slot))
            if observations[slot].done:
                del observations[slot]
                yield episode_result(envs[slot].state)


def _first_attempt_samples(policy, observations: dict, k: int, max_tokens: int) -> dict[int, list[str]]:
    """slot -> k sampled answers, for the slots about to make their first attempt (none when k = 1)."""
    first = [slot for slot, obs in observations.items() if obs.turn == 0]
    if k < 2 or not first:
        return {}
    from alice_app.models.consistency import draw_samples

    drawn = draw_samples(policy, [observations[slot].messages for slot in first], k, max_tokens=max_tokens)
    return dict(zip(first, drawn))


def episode_result(state: dict) -> EpisodeResult:
    """The outcome of a finished episode, from ``AliceEnvironment.state``."""
    task = Task.from_dict(state["task"])
    first = Verdict.from_dict(state["history"][0]["verdict"])
    mode = None if first.is_correct else label_failure(task, first)
    sampled = "consistency" in first.details
    return EpisodeResult(task=task, solved=bool(state["solved"]), turns=int(state["turn"]),
                         first_attempt_correct=bool(first.is_correct), failure_mode=mode,
                         failure_id=state.get("failure_id"), confidence=first.confidence if sampled else None,
                         unstable=bool(first.details.get("unstable")),
                         first_response=str(state["history"][0]["response"]),
                         repair_of=state.get("repair_of"), repaired=bool(state.get("repaired")))


def _random_starts(rng: Random, families: list[str] | None, wording: str = "template") -> Iterator[Start]:
    while True:
        task_seed = rng.randrange(TRAIN_SEED_LIMIT)
        if families:
            family = rng.choice(families)
            yield lambda env, f=family, s=task_seed: env.reset(seed=s, family=f, mode="hunt", wording=wording)
        else:
            yield lambda env, s=task_seed: env.reset(seed=s, mode="hunt", wording=wording)


def _mutate_starts(rng: Random, families: list[str] | None, archive: Archive,
                   bank_seeds: list[Task]) -> Iterator[Start]:
    """Mutants of archive elites (mostly) or banked failures; plain hunting until a failure is known."""
    fallback = _random_starts(rng, families)
    while True:
        elites = archive.elites()
        if elites and (not bank_seeds or rng.random() < ARCHIVE_SHARE):
            parent = rng.choice(elites)
        elif bank_seeds:
            parent = rng.choice(bank_seeds)
        else:
            yield next(fallback)
            continue
        try:
            child = mutate(parent, Random(rng.randrange(2**32)))
        except ValueError:  # a parent its family can no longer regenerate: search elsewhere
            bank_seeds[:] = [task for task in bank_seeds if task.id != parent.id]
            archive.drop(parent)
            continue
        yield lambda env, t=child: env.reset(task=t)


def _bank_failures(bank, families: list[str] | None) -> list[Task]:
    return [Task.from_dict(row["task"]) for row in _unrepaired_rows(bank, families, BANK_SEEDS)]


def _unrepaired_rows(bank, families: list[str] | None, n: int) -> list[dict]:
    """The ``n`` newest unrepaired failures of ``families`` (None: all) that hold their task."""
    rows = bank.query(family=families, repaired=False, page_size=max(1, min(n, MAX_PAGE_SIZE))).rows
    return [row for row in rows if row.get("task")]


def recheck_tasks(rows: Sequence[dict], rng: Random, variants: int = RECHECK_VARIANTS) -> list[Task]:
    """``variants`` fresh variants of each bank row's task (same template, new training seeds from ``rng``),
    row by row, each played as a repair of its row."""
    return [as_repair_of(same_template_variant(Task.from_dict(row["task"]), rng.randrange(TRAIN_SEED_LIMIT)),
                         row["id"]) for row in rows for _ in range(variants)]


def recheck_starts(tasks: Sequence[Task]) -> list[Start]:
    """Each repair task played as its unaided first attempt (``RECHECK_TURNS``): the bank counts a repair by
    that attempt alone, so later turns would cost generations without changing what a recheck marks."""
    return [lambda env, t=task: env.reset(task=t, turns=RECHECK_TURNS) for task in tasks]


def check_hunt_args(episodes: int, families: Sequence[str] | None, strategy: str, batch_size: int,
                    wording: str = "template") -> list[str] | None:
    if episodes < 1:
        raise ValueError(f"--episodes must be at least 1, not {episodes}")
    if batch_size < 1:
        raise ValueError(f"--batch-size must be at least 1, not {batch_size}")
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}, not {strategy!r}")
    unknown = [f for f in families or () if f not in family_names()]
    if unknown:
        raise ValueError(f"unknown task family {unknown[0]!r}; choose from: {', '.join(family_names())}")
    check_wording(wording, families or ())
    return list(families) if families else None


def _progress_bar(total: int, strategy: str, enabled: bool):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=f"hunt ({strategy})", unit="episode", disable=not enabled)


def summary_rows(report: HuntReport) -> list[dict]:
    """One row per (family, level): episodes, first-attempt and in-episode solves, top failure mode. A recheck's
    episodes are first attempts only, so its rows have no by-turn-5 column."""
    groups: dict[tuple[str, str], list[EpisodeResult]] = {}
    for result in report.results:
        groups.setdefault((result.task.family, result.task.level), []).append(result)
    whole_episodes = report.strategy != "recheck"
    rows = []
    for (family, level), results in sorted(groups.items()):
        modes = Counter(r.failure_mode for r in results if r.failure_mode)
        rows.append({
            "family": family, "level": level, "episodes": len(results),
            "solved_t1": sum(r.first_attempt_correct for r in results),
            **({"solved_by_t5": sum(r.solved for r in results)} if whole_episodes else {}),
            "banked": sum(not r.solved for r in results),
            "top_mode": modes.most_common(1)[0][0] if modes else "-",
        })
    return rows


def archive_rows(archive: Archive) -> list[dict]:
    return [
        {"family": family, "level": level, "mode": mode, "hits": cell.hits, "fitness": round(cell.fitness, 2),
         "mutation": _describe_mutation(cell.elite), "elite": cell.elite.prompt}
        for (family, level, mode), cell in sorted(archive.cells.items())
    ]


def axis_rows(archive: Archive) -> list[dict]:
    return [
        {"axis": axis, "mutants": tries, "still_failing": archive.axis_failures[axis],
         "survival": round(archive.axis_failures[axis] / tries, 2)}
        for axis, tries in sorted(archive.axis_tries.items())
    ]


def _describe_mutation(task: Task) -> str:
    mutation = task.metadata.get("mutation") or {}
    return f"{mutation.get('axis')}: {mutation.get('from')} → {mutation.get('to')}" if mutation else "-"
