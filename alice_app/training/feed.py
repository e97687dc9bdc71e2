"""The co-evolving prompt feed: each GRPO prompt is drawn live, from what the model needs now.

Three sources, mixed by a seeded ``Random``:
- **repair**: a banked failure turned into a fresh variant (same template, or contrastive), kept
  with probability of its cell's weight, so failures of a cell the policy has since mastered stop
  filling the batch with groups that are all correct;
- **zone replay** (a ``zone_replay`` share, 0.25 by default): a task at its family's curriculum level whose
  last group's pass rate lies inside the discrimination zone (a group with mixed outcomes is the only kind that
  carries a GRPO gradient, and a task's own last group predicts its next one better than its cell does);
- **hunt**: a new task from the frontier: each family's current curriculum level, and the ``lookahead`` levels above
  it (``TrainConfig.feed_lookahead`` by default; each probed at ``LOOKAHEAD_WEIGHT`` times the weight of the level
  below, so with 2 and three levels every harder level is in the feed from the first step). A cell (family × level)
  is chosen with weight = its recent share of **mixed groups** (some completions right, some wrong: the only groups
  that carry a GRPO gradient), so cells the model always or never solves fade out, a cell at 50 % made of tasks
  solved k/k and tasks failed 0/k fades too (4p(1−p) of its pass rate would not see it), and a harder level that has
  come within reach is trained before the curriculum formally moves.
A probe (``feed_probe``) may answer a few tasks of every frontier cell before the first draw, so the first
steps already go where mixed groups are. Every judged group comes back through ``observe``: it updates the
task's pass rate, the cell's estimate, the curriculum window (promotion/demotion), the failure bank and
repair progress.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, replace
from random import Random
from typing import Any, Callable, Iterator, Sequence

from alice_app.config import TRAIN_SEED_LIMIT
from alice_app.curriculum import record_outcome
from alice_app.failure_modes import label_failure
from alice_app.tasks.registry import generate_task
from alice_app.tasks.repair import pick_failures, repair_variant, unrepaired_rows
from alice_app.training.config import MAX_ZONE_REPLAYS, TrainConfig
from alice_app.training.prompts import task_messages
from alice_app.training.rewards import GroupResult
from alice_app.types import LEVELS, Task
from alice_app.verify.tier3 import consistency

ESTIMATE_MEMORY = 0.7  # older groups of a cell count this much less after each new group
MIN_CELL_WEIGHT = 0.1  # cells outside the zone are still probed: the core of ALICE is the hard ones
LOOKAHEAD_WEIGHT = 0.5  # weight of a level relative to the level below it, above a family's curriculum level
# Only first attempts at the family's current level speak for its curriculum level: repairs may be
# at another level, and an episode's final attempt has seen feedback and a hint.
CURRICULUM_SOURCES = ("hunt", "zone", "probe")


@dataclass(frozen=True)
class CellStats:
    """A cell's recent groups, each older group discounted by ``ESTIMATE_MEMORY`` per new one."""
    mixed: float = 0.0  # groups with both right and wrong completions
    groups: float = 0.0

    def add(self, passes: int, n: int) -> "CellStats":
        return CellStats(ESTIMATE_MEMORY * self.mixed + (0 < passes < n), ESTIMATE_MEMORY * self.groups + 1)


@dataclass(frozen=True)
class FeedItem:
    task: Task
    source: str
    messages: tuple[dict, ...]
    failure_id: int | None = None
    turn_index: int = 1  # the episode turn the completion answers (5 in episode mode)
    previous_answers: tuple[str | None, ...] = ()  # the episode's earlier answers (repetition penalty)

    def to_row(self) -> dict[str, Any]:
        """One dataset row; TRL passes the extra columns to the reward function."""
        return {"prompt": list(self.messages), "task": json.dumps(self.task.to_dict()),
                "source": self.source, "failure_id": -1 if self.failure_id is None else self.failure_id,
                "turn_index": self.turn_index, "previous_answers": json.dumps(list(self.previous_answers))}


class CoevolvingFeed:
    """Draws prompts from the curriculum, the bank and the zone; learns from every judged group."""

    def __init__(self, families: Sequence[str], curriculum: Any, bank: Any, *, seed: int = 0,
                 build_messages: Callable[[Task], Sequence[dict]] = task_messages,
                 lookahead: int = TrainConfig.feed_lookahead, zone_replay: float = TrainConfig.feed_zone_replay):
        if not families:
            raise ValueError("the feed needs at least one task family")
        if not 0 <= lookahead < len(LEVELS):
            raise ValueError(f"lookahead must be between 0 and {len(LEVELS) - 1} levels, not {lookahead}")
        if not 0.0 <= zone_replay <= 1.0:
            raise ValueError(f"zone_replay must be a share between 0 and 1, not {zone_replay}")
        self.lookahead, self.zone_replay = lookahead, zone_replay
        self.families = list(families)
        self.curriculum, self.bank = curriculum, bank
        self.config = curriculum.load_config()
        self.states = curriculum.load(self.families)
        self.rng = Random(seed)
        self.build_messages = build_messages
        self.cells: dict[tuple[str, str], CellStats] = {}
        self.known_tasks: dict[str, Task] = {}
        self.replays: dict[str, int] = {}
        self.drawn: dict[str, int] = {}

    # -- drawing -------------------------------------------------------------------------------
    def rows(self) -> Iterator[dict[str, Any]]:
        """Endless rows for ``datasets.IterableDataset.from_generator``: drawn one at a time."""
        while True:
            yield self.draw().to_row()

    def draw(self) -> FeedItem:
        roll = self.rng.random()
        item = None
        if roll < self.config.repair_mix:
            item = self.repair_item()
        elif roll < self.config.repair_mix + self.zone_replay:
            item = self.zone_item()
        item = item or self.hunt_item()
        self.known_tasks[item.task.id] = item.task
        self.drawn[item.source] = self.drawn.get(item.source, 0) + 1
        return item

    def level_of(self, family: str) -> str:
        state = self.states[family]
        return state.pinned or state.level

    def mixed_share(self, family: str, level: str) -> float | None:
        """The cell's share of mixed-outcome groups, Laplace-smoothed over recent groups; None before the first."""
        stats = self.cells.get((family, level))
        return None if stats is None else (stats.mixed + 1) / (stats.groups + 2)

    def frontier(self) -> list[tuple[str, str, float]]:
        """(family, level, prior) for each family's curriculum level and, unless pinned, the
        ``lookahead`` levels above it, the prior halving (``LOOKAHEAD_WEIGHT``) with each level."""
        cells = []
        for family in self.families:
            level = LEVELS.index(self.level_of(family))
            reach = 0 if self.states[family].pinned else self.lookahead
            for distance, above in enumerate(LEVELS[level : level + reach + 1]):
                cells.append((family, above, LOOKAHEAD_WEIGHT ** distance))
        return cells

    def cell_weight(self, family: str, level: str, prior: float = 1.0) -> float:
        """``prior × mixed_share``, never below ``prior × MIN_CELL_WEIGHT``; unmeasured = prior."""
        share = self.mixed_share(family, level)
        return prior * max(1.0 if share is None else share, MIN_CELL_WEIGHT)

    def hunt_item(self) -> FeedItem:
        cells = self.frontier()
        family, level, _ = self.rng.choices(cells, weights=[self.cell_weight(*cell) for cell in cells])[0]
        task = generate_task(family, level, self.rng.randrange(TRAIN_SEED_LIMIT))
        return self._item(task, "hunt")

    def probe_items(self, per_cell: int) -> list[FeedItem]:
        """``per_cell`` new tasks of every frontier cell, for a probe (``training/probe.py``) to answer before
        the first draw: their judged groups give every cell a measured estimate, where otherwise the first
        steps would go to cells in proportion to their prior alone."""
        items = [self._item(generate_task(family, level, self.rng.randrange(TRAIN_SEED_LIMIT)), "probe")
                 for family, level, _ in self.frontier() for _ in range(per_cell)]
        self.known_tasks.update((item.task.id, item.task) for item in items)
        return items

    def zone_item(self) -> FeedItem | None:
        """A task last measured inside the zone, from the first family (in random order) that has one at its
        curriculum level (run 31 also replayed the lookahead levels', at 409d4f3: not adopted)."""
        for family in self.rng.sample(self.families, len(self.families)):
            ids = self.curriculum.zone_tasks(family, self.level_of(family), self.config.zone)
            candidates = [i for i in ids if i in self.known_tasks and self.replays.get(i, 0) < MAX_ZONE_REPLAYS]
            if candidates:
                task_id = self.rng.choice(candidates)
                self.replays[task_id] = self.replays.get(task_id, 0) + 1
                return self._item(self.known_tasks[task_id], "zone")
        return None

    def repair_item(self) -> FeedItem | None:
        rows = unrepaired_rows(self.bank.repair_candidates(limit=200), self.families)
        if not rows:
            return None
        row = pick_failures(rows, 1, self.rng)[0]
        if self.rng.random() >= self.cell_weight(row["family"], row["level"]):
            return None  # the policy now solves (or still never solves) this cell: a hunt teaches more
        return self._item(repair_variant(row, self.rng), "repair", failure_id=int(row["id"]))

    def _item(self, task: Task, source: str, failure_id: int | None = None) -> FeedItem:
        return FeedItem(task=task, source=source, messages=tuple(self.build_messages(task)), failure_id=failure_id)

    # -- learning from judged groups ---------------------------------------------------------
    def observe(self, results: list[GroupResult]) -> None:
        for result in results:
            self._observe_group(result)

    def _observe_group(self, result: GroupResult) -> None:
        task = result.task
        self.curriculum.record_pass_rate(task.id, task.family, task.level, result.passes, len(result.verdicts))
        cell = (task.family, task.level)
        self.cells[cell] = self.cells.get(cell, CellStats()).add(result.passes, len(result.verdicts))
        agreement = consistency(task, result.responses).to_dict()  # tier 3: the group is k samples
        for response, verdict in zip(result.responses, result.verdicts):
            self.bank.record_attempt(task, verdict.is_correct)
            if not verdict.is_correct:
                verdict = replace(verdict, details={**verdict.details, "group_consistency": agreement})
                self.bank.record(task, response, verdict, mode=label_failure(task, verdict), source="train")
        if result.failure_id is not None:
            self.bank.record_repair_attempt(result.failure_id, solved=2 * result.passes >= len(result.verdicts))
        speaks_for_level = task.family in self.states and task.level == self.level_of(task.family)
        if speaks_for_level and result.source in CURRICULUM_SOURCES:
            self._update_curriculum(task.family, [v.is_correct for v in result.verdicts])

    def _update_curriculum(self, family: str, outcomes: list[bool]) -> None:
        state = self.states[family]
        for correct in outcomes:
            state = record_outcome(state, correct, self.config)
        self.states[family] = state
        self.curriculum.save(state)


def static_items(families: Sequence[str], size: int, seed: int,
                 build_messages: Callable[[Task], Sequence[dict]] = task_messages) -> list[FeedItem]:
    """The baseline: a fixed dataset, uniform over families × levels, shuffled once by ``seed``."""
    rng = Random(seed)
    cells = [(family, level) for family in families for level in LEVELS]
    items = []
    for index in range(size):
        family, level = cells[index % len(cells)]
        task = generate_task(family, level, rng.randrange(TRAIN_SEED_LIMIT))
        items.append(FeedItem(task=task, source="static", messages=tuple(build_messages(task))))
    rng.shuffle(items)
    return items
