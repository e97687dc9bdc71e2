"""Adapter: any reasoning-gym dataset as an ALICE family, scored by the dataset's own score_answer.

reasoning-gym is imported lazily (it takes seconds), so registering adapters costs nothing. Each
task is item 0 of the dataset built with ``size=1`` and a seed derived from the task seed and its
level (``dataset_seed``), so levels whose config ranges overlap still give different tasks for the
same seed: deterministic and cheap.

Answers are numbers ("-4") or text ("TIPS,TAPS,BAPS", "P ∨ Q"). A text task asks for
``Answer: <answer>`` and carries ``metadata["answer_kind"] = "text"``, which the verifier's
extraction, the feedback and the failure labels read. Datasets whose answer is open (any valid
conclusion scores, e.g. propositional_logic, where reasoning-gym's reference answer is None) get
``answer = ""`` (no reference to copy into a DPO "chosen"): only their scorer can accept an answer.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Mapping

from alice_app.tasks._common import ANSWER_FORMAT, task_id
from alice_app.tasks.registry import Family, register
from alice_app.types import LEVELS, Task
from alice_app.numbers import to_fraction

TEXT_ANSWER_FORMAT = 'End your reply with a final line of the form "Answer: <answer>".'


@dataclass(frozen=True)
class ReasoningGymConfig:
    dataset: str = field(metadata={"help": "reasoning-gym dataset name, e.g. basic_arithmetic"})
    levels: Mapping[str, Mapping[str, Any]] = field(metadata={"help": "dataset config overrides per level"})
    hint: str = field(default="Work through the problem one step at a time and check each step.",
                      metadata={"help": "structural hint shown at turn 4; must not state an answer"})

    def validate(self) -> "ReasoningGymConfig":
        missing = {"easy", "medium", "hard"} - set(self.levels)
        if missing:
            raise ValueError(f"reasoning-gym family {self.dataset}: levels {sorted(missing)} have no config")
        return self


@lru_cache(maxsize=64)
def _dataset(name: str, frozen_config: tuple, seed: int):
    import reasoning_gym  # lazy: importing it takes seconds

    return reasoning_gym.create_dataset(name, size=1, seed=seed, **dict(frozen_config))


def _frozen(config: Mapping[str, Any]) -> tuple:
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in config.items()))


def final_answer_text(response: str) -> str:
    """The text after the last "Answer:" (or the last non-empty line), stripped of markup.

    reasoning-gym's scorers compare answer strings, so they need the bare answer, not the reply.
    """
    lowered = response.lower()
    cut = lowered.rfind("answer:")
    if cut >= 0:
        text = response[cut + len("answer:"):].strip().splitlines()
        text = text[0] if text else ""
    else:
        lines = [line for line in response.strip().splitlines() if line.strip()]
        text = lines[-1] if lines else ""
    return text.strip().strip("*`$ ").rstrip(".").strip()


def dataset_seed(seed: int, level: str) -> int:
    """The reasoning-gym seed of task ``seed`` at ``level``: distinct per level, deterministic."""
    return seed * len(LEVELS) + LEVELS.index(level)


def answer_kind(answer: Any) -> str:
    return "number" if answer is not None and to_fraction(str(answer)) is not None else "text"


def make_generator(name: str, config: ReasoningGymConfig):
    def generate(level: str, seed: int, params: dict) -> Task:
        level_config = _frozen(config.levels[level])
        derived = dataset_seed(seed, level)
        entry = _dataset(config.dataset, level_config, derived)[0]
        kind = answer_kind(entry["answer"])
        metadata = {"template": config.dataset, "operands": [], "operator": "", "distractors": [],
                    "negated": False, "alternatives": [], "source_dataset": config.dataset,
                    "dataset_config": dict(level_config), "entry": _plain(entry), "params": {},
                    "dataset_seed": derived, "answer_kind": kind}
        answer_format = ANSWER_FORMAT if kind == "number" else TEXT_ANSWER_FORMAT
        return Task(id=task_id(name, level, seed, params), family=name, level=level,
                    prompt=f"{entry['question']}\n{answer_format}",
                    answer="" if entry["answer"] is None else str(entry["answer"]),
                    hint=config.hint, seed=seed, metadata=metadata)

    return generate


def make_scorer(config: ReasoningGymConfig):
    def score(task: Task, response: str) -> float:
        level_config = _frozen(config.levels[task.level])
        # Tasks banked before dataset_seed existed were built from the task seed itself.
        dataset = _dataset(config.dataset, level_config, int(task.metadata.get("dataset_seed", task.seed)))
        entry = dataset[0]  # regenerated, so a task read back from the database scores the same
        return float(dataset.score_answer(final_answer_text(response or ""), entry))

    return score


def _plain(value: Any) -> Any:
    """JSON-friendly copy of a reasoning-gym entry (it holds tuples and sometimes other objects)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value if isinstance(value, (str, int, float, bool, type(None))) else str(value)


def register_dataset(name: str, config: ReasoningGymConfig, description: str) -> Family:
    config.validate()
    return register(Family(name=name, description=description, generate=make_generator(name, config),
                           core=False, scorer=make_scorer(config)))


BASIC_ARITHMETIC_LEVELS = {
    "easy": {"min_terms": 2, "max_terms": 3, "min_digits": 1, "max_digits": 1, "operators": ("+", "-"),
             "allow_parentheses": False, "allow_negation": False},
    "medium": {"min_terms": 3, "max_terms": 4, "min_digits": 1, "max_digits": 2,
               "operators": ("+", "-", "*"), "allow_parentheses": True, "allow_negation": False},
    "hard": {"min_terms": 4, "max_terms": 6, "min_digits": 2, "max_digits": 3,
             "operators": ("+", "-", "*", "/"), "allow_parentheses": True, "allow_negation": True},
}

FAMILY = register_dataset(
    "rg_basic_arithmetic",
    ReasoningGymConfig(dataset="basic_arithmetic", levels=BASIC_ARITHMETIC_LEVELS,
                       hint="Work inside parentheses first, then multiply and divide, then add and "
                            "subtract from left to right; keep track of every minus sign."),
    "reasoning-gym basic_arithmetic, scored by its own score_answer",
)
