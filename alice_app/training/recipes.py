"""YAML recipes of ``TrainConfig`` settings: reading one, and the repository's own (examples/recipes).

A recipe is a YAML mapping of TrainConfig field names to values; the comment lines it opens with
describe it. The CLI takes one with ``--config``; the Training tab offers the repository's recipes
in a menu that fills its form. Validation is TrainConfig's (``from_dict``), wherever a recipe goes.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

RECIPES_DIR = Path(__file__).resolve().parents[2] / "examples" / "recipes"  # absent in a bare pip install


def load_recipe(path: str | Path) -> dict[str, Any]:
    """A YAML mapping of settings; anything else is an error a user can act on."""
    import yaml

    path = Path(path)
    if not path.is_file():
        raise ValueError(f"recipe {path} does not exist")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ValueError(f"recipe {path} is not valid YAML: {exc}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ValueError(f"recipe {path} must be a YAML mapping of settings (name: value)")
    return data


def recipe_paths(folder: Path = RECIPES_DIR) -> dict[str, Path]:
    """{name: path} of the ``*.yaml`` recipes in ``folder`` (none when it does not exist), sorted by name."""
    return {path.stem: path for path in sorted(folder.glob("*.yaml"))} if folder.is_dir() else {}


def describe(path: Path) -> str:
    """The recipe's opening comment up to the command line it shows, as one line."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        text = line.lstrip("#").strip()
        if not line.startswith("#") or text.startswith("python "):
            break
        lines.append(text)
    return " ".join(lines).rstrip(":").strip()
