"""The ALICE environment: picks a task, runs the 5-turn episode, and writes what it learned.

One instance per session (a UI tab, an OpenEnv connection, a training worker); nothing lives at
module level. The decisions are the core's pure functions; this class only wires them to the
failure bank and the curriculum store.
"""
from __future__ import annotations

import uuid
from dataclasses import asdict, dataclass, field, replace
from random import Random
from typing import Any, Mapping, Sequence

import alice_app.tasks  # noqa: F401  (registers the built-in families)
from alice_app.config import TRAIN_SEED_LIMIT
from alice_app.curriculum import discrimination, record_outcome, rolling_accuracy
from alice_app.episode import Episode, advance, check_turn_limit, new_episode
from alice_app.failure_modes import label_failure
from alice_app.tasks.registry import family_names, generate_task
from alice_app.tasks.repair import pick_failures, repair_variant
from alice_app.tasks.wordings import check_wording, worded_families
from alice_app.types import LEVELS, MAX_SAMPLES, TURN_KINDS, Task, check_seed
from alice_app.verify.tier3 import unreliable

MODES = ("auto", "hunt", "repair")
MAX_ACTION_BYTES = 64 * 1024
ZONE_SHARE = 0.5  # how often hunt replays a known task whose pass rate is in the zone
REPAIR_KEY = "repair_bank_id"  # Task.metadata key linking a repair task to its bank row
REPAIR_REQUIRED = 3  # variants solved unaided before a failure counts as repaired


@dataclass(frozen=True)
class Observation:
    """What the policy (or the person) sees after reset/step. ``turn`` counts turns played."""

    task_id: str
    family: str
    level: str
    prompt: str  # the task itself; the message for the next turn is ``messages[-1]``
    turn: int
    kind: str | None  # the next turn's kind, None once done
    done: bool
    reward: float | None  # this turn's total; components are in info["reward_components"]
    verdict: dict | None
    feedback: str
    hint: str | None  # the structural hint, once the episode has revealed it
    messages: list[dict] = field(default_factory=list)
    info: dict = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def as_repair_of(task: Task, failure_id: int) -> Task:
    """``task`` played as a repair of bank row ``failure_id``: its unaided first attempt counts toward
    marking that failure repaired (``FailureBank.record_repair_attempt``)."""
    return replace(task, metadata={**task.metadata, REPAIR_KEY: int(failure_id)})


class AliceEnvironment:
    """``reset`` → ``step`` × (1..5) → done. Not thread-safe itself: one per session."""

    def __init__(self, bank, curriculum_store, verifier, *, rng_seed: int | None = None,
                 families: Sequence[str] | None = None, repair_required: int = REPAIR_REQUIRED,
                 source: str | None = None):
        # ``source`` labels banked failures (e.g. "manual" in the workbench); None = the episode's mode.
        if repair_required < 1:
            raise ValueError("repair_required must be at least 1")
        self._bank = bank
        self._curriculum = curriculum_store
        self._verifier = verifier
        self._rng = Random(rng_seed)
        self._families = list(families) if families else family_names()
        self._repair_required = repair_required
        self._source = source
        self._episode: Episode | None = None
        self._episode_id: str | None = None
        self._mode = ""
        self._outcome: dict = {}

    # -- public API ------------------------------------------------------------------------
    def reset(self, seed: int | None = None, *, family: str | None = None, level: str | None = None,
              mode: str = "auto", task: Task | Mapping | None = None, wording: str = "template",
              turns: int = len(TURN_KINDS)) -> Observation:
        """Start an episode. ``task`` plays that task; otherwise ``mode`` picks one: hunt (from the
        family's curriculum level), repair (a variant of a banked failure) or auto (the config's
        repair_mix). With a fixed ``family`` in hunt mode, ``seed`` is the task's seed, so
        ``reset(seed=7, family=F, level=L)`` plays task ``F/L/7``; otherwise it seeds the choice.
        ``wording="free"`` asks a hunt task in a composed wording (alice_app.tasks.wordings) when its family
        offers one: a named family that does not is refused; a family the curriculum picks keeps its template.
        ``turns`` < 5 ends the episode sooner (1: the unaided first attempt only, which is all that the
        curriculum and a repair count)."""
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        if seed is not None:
            check_seed(seed)
        if level is not None and level not in LEVELS:
            raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
        if family is not None and family not in self._families:
            raise ValueError(f"unknown task family {family!r}; choose one of: {', '.join(self._families)}")
        check_wording(wording, [family] if family else [])
        check_turn_limit(turns)
        rng = Random(seed) if seed is not None else self._rng
        picked_task, picked_mode = self._pick(rng, seed, family, level, mode, task, wording)
        check_seed(picked_task.seed)  # a hand-made task's seed must fit the bank, checked before any write
        self._episode = new_episode(picked_task, turns)
        self._episode_id = uuid.uuid4().hex
        self._mode = picked_mode
        self._outcome = {}
        return self._observation(None, None)

    def step(self, action: str, samples: Sequence[str] | None = None) -> Observation:
        """Judge one answer, advance the episode, and at its end write to the bank and curriculum.

        ``samples`` (tier 3, optional): 2..16 more answers the policy sampled for the same prompt.
        Their agreement becomes the verdict's confidence; a right first attempt whose samples
        disagree is banked at the end with the failure mode ``unstable`` (right, but not reliably)."""
        _check_action(action)
        samples = _check_samples(samples)
        if self._episode is None:
            raise ValueError("no episode: call reset() before step()")
        if self._episode.done:
            raise ValueError("the episode is over: call reset() to start a new one")
        verdict = self._verifier.verify(self._episode.task, action, samples=samples)
        self._episode = advance(self._episode, action, verdict)
        if self._episode.done:
            self._outcome = self._finish(self._episode)
        return self._observation(verdict, self._episode.turns[-1].reward)

    @property
    def state(self) -> dict[str, Any]:
        episode = self._episode
        if episode is None:
            return {"episode_id": None, "mode": None, "task": None, "turn": 0, "done": False,
                    "solved": False, "rewards": [], "history": []}
        return {
            "episode_id": self._episode_id, "mode": self._mode, "task": episode.task.to_dict(),
            "turn": len(episode.turns), "done": episode.done, "solved": episode.solved,
            "rewards": [t.reward.total for t in episode.turns],
            "history": [t.to_dict() for t in episode.turns], **self._outcome,
        }

    @property
    def episode(self) -> Episode | None:
        return self._episode

    # -- choosing the task -----------------------------------------------------------------
    def _pick(self, rng: Random, seed, family, level, mode, task, wording) -> tuple[Task, str]:
        if task is not None:
            task = _as_task(task)
            return task, "repair" if REPAIR_KEY in task.metadata else "manual"
        if mode == "auto":
            wants_repair = rng.random() < self._curriculum.load_config().repair_mix
            repair = self._repair_task(rng, family) if wants_repair else None
            return (repair, "repair") if repair else (self._hunt_task(rng, seed, family, level, wording), "hunt")
        if mode == "repair":
            repair = self._repair_task(rng, family)
            if repair is None:
                where = f" for {family}" if family else ""
                raise ValueError(f"the failure bank has no failures{where} to repair yet; play hunt episodes first")
            return repair, "repair"
        return self._hunt_task(rng, seed, family, level, wording), "hunt"

    def _hunt_task(self, rng: Random, seed: int | None, family: str | None, level: str | None,
                   wording: str = "template") -> Task:
        config = self._curriculum.load_config()
        states = self._curriculum.load([family] if family else self._families)
        named = family is not None
        if not named:
            family = _weighted_choice(rng, list(states), [_family_weight(s) for s in states.values()])
        params = {"wording": wording} if wording != "template" and family in worded_families() else {}
        if named and seed is not None:  # seed is the task's seed
            return generate_task(family, level or _current_level(states[family]), seed, **params)
        level = level or _current_level(states[family])
        known = self._curriculum.zone_tasks(family, level, config.zone)
        known_seeds = [s for s in map(seed_from_task_id, known) if s is not None]
        if known_seeds and rng.random() < ZONE_SHARE:
            return generate_task(family, level, rng.choice(known_seeds), **params)
        return generate_task(family, level, rng.randrange(TRAIN_SEED_LIMIT), **params)

    def _repair_task(self, rng: Random, family: str | None) -> Task | None:
        candidates = self._bank.repair_candidates(family=family)
        if not candidates:
            return None
        failure = pick_failures(candidates, 1, rng)[0]
        return as_repair_of(repair_variant(failure, rng), failure["id"])

    # -- the end of an episode -------------------------------------------------------------
    def _finish(self, episode: Episode) -> dict[str, Any]:
        """Write the episode's outcome. Curriculum and repair count the unaided first attempt
        (a hint-assisted solve says little about the model); the bank counts the episode."""
        with self._bank.atomic():  # attempts, failure row, curriculum and repair count: all or nothing
            return self._write_outcome(episode)

    def _write_outcome(self, episode: Episode) -> dict[str, Any]:
        task, first_correct = episode.task, episode.turns[0].verdict.is_correct
        outcome: dict[str, Any] = {"solved": episode.solved, "first_attempt_correct": first_correct}
        if self._mode == "hunt":
            outcome.update(self._update_curriculum(task, first_correct))
        self._bank.record_attempt(task, episode.solved)
        # Banked and labelled by the unaided first attempt: what the model does when nobody helps it
        # (later turns answer feedback and hints); every turn stays in the history. A solved episode
        # whose first answer was right but unstable over its samples is banked as "unstable".
        first = episode.turns[0]
        banked = _banked_as(episode)
        if banked is not None:
            outcome["failure_mode"], verdict = banked
            outcome["failure_id"] = self._bank.record(task, first.response, verdict, mode=outcome["failure_mode"],
                                                      source=self._source or self._mode,
                                                      history=[turn.to_dict() for turn in episode.turns])
        if REPAIR_KEY in task.metadata:
            outcome["repair_of"] = task.metadata[REPAIR_KEY]
            outcome["repaired"] = self._bank.record_repair_attempt(
                task.metadata[REPAIR_KEY], first_correct, required=self._repair_required)
        return outcome

    def _update_curriculum(self, task: Task, correct: bool) -> dict[str, Any]:
        config = self._curriculum.load_config()

        def change(state):
            # A task played off-level (chosen by hand) says nothing about the family's level.
            return record_outcome(state, correct, config) if task.level == _current_level(state) else state

        before, after = self._curriculum.update(task.family, change)
        if after is before:  # off-level: nothing recorded
            return {}
        return {"level_before": before.level, "level_after": after.level,
                "rolling_accuracy": rolling_accuracy(after)}

    def _observation(self, verdict, reward) -> Observation:
        episode = self._episode
        task, kind = episode.task, episode.next_kind
        revealed = episode.done or kind in ("hint", "final")
        info = {"episode_id": self._episode_id, "mode": self._mode, **self._outcome}
        if reward is not None:
            info["reward_components"] = dict(reward.components)
        if REPAIR_KEY in task.metadata:
            info.setdefault("repair_of", task.metadata[REPAIR_KEY])
        return Observation(
            task_id=task.id, family=task.family, level=task.level, prompt=task.prompt,
            turn=len(episode.turns), kind=kind, done=episode.done,
            reward=None if reward is None else float(reward.total),
            verdict=None if verdict is None else verdict.to_dict(),
            feedback="" if verdict is None else verdict.feedback,
            hint=task.hint if revealed else None, messages=episode.messages(), info=info,
        )


def _check_action(action: Any) -> None:
    if not isinstance(action, str):
        raise ValueError(f"an action is the answer text (a string), not {type(action).__name__}")
    size = len(action.encode("utf-8", errors="surrogatepass"))
    if size > MAX_ACTION_BYTES:
        raise ValueError(f"the answer is {size:,} bytes; the limit is {MAX_ACTION_BYTES:,} (64 KB)")


def _banked_as(episode: Episode) -> tuple[str, Any] | None:
    """(failure mode, verdict to bank) of a finished episode, or None when nothing is banked."""
    first = episode.turns[0].verdict
    if not episode.solved:
        return label_failure(episode.task, first), first
    if first.details.get("unstable"):
        return "unstable", unreliable(first)
    return None


def _check_samples(samples: Sequence[str] | None) -> list[str] | None:
    if samples is None or len(samples) == 0:
        return None
    if isinstance(samples, str):
        raise ValueError("samples is a list of answer texts, not one string")
    if not 2 <= len(samples) <= MAX_SAMPLES:
        raise ValueError(f"send 2 to {MAX_SAMPLES} samples for a confidence, not {len(samples)}")
    for sample in samples:
        _check_action(sample)
    total = sum(len(sample.encode("utf-8", errors="surrogatepass")) for sample in samples)
    if total > MAX_ACTION_BYTES:  # all samples together cost no more to judge than one long answer
        raise ValueError(f"the samples are {total:,} bytes together; the limit is {MAX_ACTION_BYTES:,} (64 KB)")
    return list(samples)


def _as_task(task: Task | Mapping) -> Task:
    if isinstance(task, Task):
        return task
    try:
        return Task.from_dict(task)
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"task must be a Task or a dict with id, family, level, prompt, answer and seed ({exc!r})") from None


def _current_level(state) -> str:
    return state.pinned or state.level


def _family_weight(state) -> float:
    """Families whose accuracy sits near 50% teach the most; unknown ones count as ideal."""
    accuracy = rolling_accuracy(state)
    return 0.1 + discrimination(0.5 if accuracy is None else accuracy)


def _weighted_choice(rng: Random, items: list, weights: list[float]):
    return rng.choices(items, weights=weights, k=1)[0]


def seed_from_task_id(task_id: str) -> int | None:
    """``family/level/seed`` → seed; None for ids with params (``#hash``) or that do not parse."""
    parts = task_id.split("/")
    if len(parts) != 3 or "#" in task_id:
        return None
    try:
        return int(parts[2])
    except ValueError:
        return None
