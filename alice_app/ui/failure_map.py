"""The failure map in the Failure bank tab: family × failure mode counts of the bank as a coloured
table (under the current Level and Source filters); clicking a cell filters the list to that
family and mode. The Charts tab draws the same counts as a Plotly heatmap."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import gradio as gr

from alice_app.types import FAILURE_MODES
from alice_app.ui import inputs

COLUMNS = ["family", *FAILURE_MODES, "total"]


def mode_counts(services, level=None, source=None) -> list[dict[str, Any]]:
    """``[{"family", "mode", "n"}]`` from the bank under the Level and Source filters."""
    return services.bank.family_mode_counts(level=level, source=source)


def map_rows(counts: Sequence[Mapping[str, Any]]) -> list[list[Any]]:
    """One row per family: its count per failure mode (in FAILURE_MODES order) and its total."""
    table: dict[str, dict[str, int]] = {}
    for row in counts:
        table.setdefault(row["family"], {})[row["mode"]] = int(row["n"])
    return [[family, *(modes.get(m, 0) for m in FAILURE_MODES), sum(modes.values())]
            for family, modes in sorted(table.items())]


def styled(rows: list[list[Any]]):
    """The table with each count's cell shaded by its share of the largest count (a heat map)."""
    import pandas as pd

    frame = pd.DataFrame(rows, columns=COLUMNS)
    if frame.empty:
        return frame
    top = max(1, int(frame[list(FAILURE_MODES)].to_numpy().max()))

    def shade(value: Any) -> str:
        # No text colour: the theme's reads on every shade, and on the plain background Gradio
        # gives a clicked cell, where white text made the count look erased.
        if not isinstance(value, (int, float)) or not value:
            return ""
        return f"background-color: rgba(220, 38, 38, {0.15 + 0.6 * value / top:.2f})"

    return frame.style.map(shade, subset=list(FAILURE_MODES))


def cell_filters(index: Sequence[int] | None, row: Sequence[Any] | None) -> tuple[str, str]:
    """(family, mode) dropdown values for a clicked cell: the family column or the total picks
    every mode."""
    if not row or not index or len(index) < 2:
        return inputs.ALL, inputs.ALL
    column = int(index[1])
    mode = COLUMNS[column] if 0 < column <= len(FAILURE_MODES) else inputs.ALL
    return str(row[0]), mode


def clicked(evt: gr.SelectData):
    return cell_filters(evt.index, evt.row_value)
