"""docs/training.md's settings table states the defaults TrainConfig really has (the table is read by people
choosing a setting; a default retyped by hand there drifted twice before this test)."""
from dataclasses import fields
from pathlib import Path

from alice_app.training.config import TrainConfig

DOC = Path(__file__).resolve().parents[2] / "docs" / "training.md"


def documented_defaults() -> dict[str, str]:
    table = DOC.read_text(encoding="utf-8").split("### Settings (`TrainConfig`)")[1].split("\n\n")[0]
    rows = {}
    for line in table.splitlines()[3:]:
        name, default = (cell.strip() for cell in line.strip("|").split("|")[:2])
        rows.update(zip(name.split(" / "), default.split(" / ")))
    return rows


def as_written(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def test_every_documented_default_is_the_dataclass_default():
    defaults = {f.name: f.default for f in fields(TrainConfig)}
    rows = documented_defaults()
    assert rows and set(rows) <= set(defaults)
    for name, written in rows.items():
        value = defaults[name]
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            assert float(written) == value, f"{name}: the table says {written}, TrainConfig has {value}"
        else:
            assert written == as_written(value), f"{name}: the table says {written}, TrainConfig has {value}"
