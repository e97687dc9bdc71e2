"""Flags and YAML recipes for a config dataclass, the way TRL's own scripts build them.

TRL's ``TrlParser`` (an ``HfArgumentParser``) turns each field of ``TrainConfig`` into a flag
whose type, default and help come from the field itself, so nothing is retyped here. Two
adjustments make it fit a subcommand of ``python -m alice_app``:

- the generated actions are moved onto the subcommand's parser, with their defaults suppressed,
  so only the flags a user actually typed reach the namespace: the precedence is then
  ``TrainConfig`` defaults < ``--config recipe.yaml`` < flags, as with ``TrlParser``;
- list settings (``tuple[str, ...]`` fields such as ``families``) take several values
  (``--families a b``), which ``HfArgumentParser`` only does for ``list`` fields.

Everything is validated once, by ``TrainConfig.from_dict``, whatever its source.
"""
from __future__ import annotations

import argparse
import dataclasses
import typing
from pathlib import Path
from typing import Any

from alice_app.training.recipes import load_recipe


def add_dataclass_flags(parser: argparse.ArgumentParser, dataclass_type: type) -> list[str]:
    """Add one flag per field (``--num_generations`` and ``--num-generations``); returns the field names."""
    from trl import TrlParser

    hints = typing.get_type_hints(dataclass_type)
    generated = TrlParser(dataclass_type, add_help=False)
    group = parser.add_argument_group(f"{dataclass_type.__name__} settings (also accepted in --config YAML)")
    for action in generated._actions:
        hint = hints.get(action.dest)
        if typing.get_origin(hint) is tuple:
            action.type, action.nargs = str, "+"
        if action.help is not None and not isinstance(action, argparse._StoreFalseAction):  # not --no_X
            action.help = f"{action.help} (default: {_shown(action.default)})"
        action.default = argparse.SUPPRESS
        group._add_action(action)
    return [f.name for f in dataclasses.fields(dataclass_type)]


def config_from_args(args: argparse.Namespace, dataclass_type: type, recipe: str | Path | None = None) -> Any:
    """The dataclass from a YAML recipe (optional) overridden by the flags present in ``args``."""
    values = load_recipe(recipe) if recipe else {}
    names = {f.name for f in dataclasses.fields(dataclass_type)}
    values.update({name: getattr(args, name) for name in names if hasattr(args, name)})
    return dataclass_type.from_dict(values)


def _shown(value: Any) -> str:
    if isinstance(value, tuple):
        return " ".join(value) if value else "none"
    return str(value)
