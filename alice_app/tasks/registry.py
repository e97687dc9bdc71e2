"""The family registry: every task family registers here, and ``generate_task`` is the one door.

A family is a name plus a pure generator ``generate(level, seed, params) -> Task``. Importing
``alice_app.tasks`` registers the built-in families, so callers only ever need this module's API.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from alice_app.types import LEVELS, Task, check_seed


@dataclass(frozen=True)
class Family:
    name: str
    description: str
    generate: Callable[[str, int, dict], Task]
    core: bool = True  # our own negation-style families; False for controls and adapters
    scorer: Callable[[Task, str], float] | None = None  # set when the family scores itself
    params: tuple[str, ...] = ()  # the overrides ``generate`` accepts
    # The values each mutable param may take; ``mutate`` moves a task along these axes.
    choices: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)


_FAMILIES: dict[str, Family] = {}
# family name -> builder of its control twin (same numbers and seed, deception removed).
_CONTROLS: dict[str, Callable[[Task], Task]] = {}


def register(family: Family) -> Family:
    """Add (or replace: reloading a module must stay harmless) a family under its name."""
    if not family.name or "/" in family.name or "#" in family.name:
        raise ValueError(f"family name {family.name!r} must be non-empty and contain no '/' or '#'")
    unknown = set(family.choices) - set(family.params)
    if unknown:
        raise ValueError(f"family {family.name}: choices {sorted(unknown)} are not declared params")
    _FAMILIES[family.name] = family
    return family


def get_family(name: str) -> Family:
    try:
        return _FAMILIES[name]
    except KeyError:
        raise ValueError(f"unknown task family {str(name)[:80]!r}; choose one of: {', '.join(family_names())}") from None


def family_names() -> list[str]:
    return sorted(_FAMILIES)


def core_family_names() -> list[str]:
    return sorted(name for name, family in _FAMILIES.items() if family.core)


def generate_task(family: str, level: str, seed: int, **params: Any) -> Task:
    """The task of ``family`` at ``level`` for ``seed``; the same arguments always give the same task."""
    spec = get_family(family)
    if level not in LEVELS:
        raise ValueError(f"unknown level {str(level)[:80]!r}; choose one of: {', '.join(LEVELS)}")
    check_seed(seed)
    unknown = sorted(set(params) - set(spec.params))
    if unknown:
        allowed = ", ".join(spec.params) or "none"
        raise ValueError(f"family {family} does not accept {', '.join(unknown)}; accepted params: {allowed}")
    return spec.generate(level, seed, dict(params))


def register_control(family: str, build: Callable[[Task], Task]) -> None:
    """Declare how ``family``'s tasks lose their deception; the twin is not a menu family."""
    get_family(family)
    _CONTROLS[family] = build


def has_control(family: str) -> bool:
    return family in _CONTROLS


def control_of(task: Task) -> Task:
    """The control twin of ``task``: same question, numbers and seed, with the deception removed.

    The distraction penalty of a cell is control accuracy minus family accuracy on the same seeds.
    """
    try:
        build = _CONTROLS[task.family]
    except KeyError:
        with_twin = ", ".join(sorted(_CONTROLS)) or "none"
        raise ValueError(f"family {task.family!r} has no control twin; families with one: {with_twin}") from None
    return build(task)
