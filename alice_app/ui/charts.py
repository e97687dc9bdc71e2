"""Plotly figure builders: plain data in, a ``go.Figure`` out; an empty input gives an empty state.

An empty state is a blank figure whose only text says what to do to fill it, so a chart never
shows invented data.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import plotly.graph_objects as go

from alice_app.types import LEVELS
from alice_app.ui.formatting import flatten_metrics

LAYOUT = dict(template="plotly_white", height=340, margin=dict(l=50, r=20, t=50, b=40))


def empty_figure(title: str, message: str) -> go.Figure:
    figure = go.Figure(layout=dict(LAYOUT, title=title))
    figure.add_annotation(text=message, showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper",
                          font=dict(size=14, color="#666"))
    figure.update_xaxes(visible=False)
    figure.update_yaxes(visible=False)
    return figure


def is_empty(figure: go.Figure) -> bool:
    return not figure.data


def _series(metrics: Sequence[Mapping[str, Any]], key: str) -> tuple[list, list]:
    flat = [flatten_metrics(row) for row in metrics]
    points = [(row.get("step"), row[key]) for row in flat if row.get(key) is not None]
    return [p[0] for p in points], [p[1] for p in points]


def reward_accuracy_figure(metrics: Sequence[Mapping[str, Any]]) -> go.Figure:
    title = "Reward and accuracy per step"
    figure = go.Figure(layout=dict(LAYOUT, title=title, xaxis_title="step"))
    for key in ("reward", "accuracy"):
        steps, values = _series(metrics, key)
        if steps:
            figure.add_scatter(x=steps, y=values, mode="lines+markers", name=key)
    if is_empty(figure):
        return empty_figure(title, "No training metrics yet: start a run in the Training tab.")
    return figure


def zero_std_figure(metrics: Sequence[Mapping[str, Any]]) -> go.Figure:
    title = "frac_reward_zero_std (groups that teach nothing)"
    steps, values = _series(metrics, "frac_reward_zero_std")
    if not steps:
        return empty_figure(title, "No GRPO metrics yet: start a GRPO run in the Training tab.")
    figure = go.Figure(layout=dict(LAYOUT, title=title, xaxis_title="step", yaxis_range=[0, 1.05]))
    figure.add_scatter(x=steps, y=values, mode="lines+markers", name="frac_reward_zero_std")
    return figure


def counts_figure(counts: Mapping[str, int], title: str) -> go.Figure:
    if not counts or not any(counts.values()):
        return empty_figure(title, "The failure bank is empty: play episodes or run a hunt to fill it.")
    ordered = sorted(counts.items(), key=lambda item: (-item[1], str(item[0])))
    figure = go.Figure(layout=dict(LAYOUT, title=title, yaxis_title="failures"))
    figure.add_bar(x=[str(k) for k, _ in ordered], y=[v for _, v in ordered])
    return figure


def failure_rate_grid(cells: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[str], list[list[float | None]]]:
    """family × level matrix of failure rate; a cell with no attempts is None (shown blank)."""
    families = sorted({c["family"] for c in cells})
    levels = [lv for lv in LEVELS if any(c["level"] == lv for c in cells)] + sorted(
        {c["level"] for c in cells} - set(LEVELS))
    rate = {(c["family"], c["level"]): _rate(c) for c in cells}
    return families, levels, [[rate.get((f, lv)) for lv in levels] for f in families]


def _rate(cell: Mapping[str, Any]) -> float | None:
    attempts = cell.get("attempts") or 0
    return None if attempts <= 0 else min(1.0, (cell.get("failures") or 0) / attempts)


def failure_map_figure(cells: Sequence[Mapping[str, Any]]) -> go.Figure:
    title = "Failure map: failure rate by family × level"
    families, levels, grid = failure_rate_grid(cells)
    if not any(v is not None for row in grid for v in row):
        return empty_figure(title, "No attempts recorded yet: play episodes or run a hunt.")
    figure = go.Figure(layout=dict(LAYOUT, title=title, height=max(300, 60 + 36 * len(families))))
    figure.add_heatmap(z=grid, x=levels, y=families, zmin=0, zmax=1, colorscale="Reds",
                       colorbar=dict(title="rate"), hoverongaps=False,
                       text=[["" if v is None else f"{100 * v:.0f}%" for v in row] for row in grid],
                       texttemplate="%{text}")
    return figure


def curriculum_figure(history: Sequence[Mapping[str, Any]]) -> go.Figure:
    title = "Curriculum level over time"
    if not history:
        return empty_figure(title, "No curriculum changes yet: play episodes, hunt or train to move the levels.")
    figure = go.Figure(layout=dict(LAYOUT, title=title, yaxis=dict(
        tickvals=list(range(len(LEVELS))), ticktext=list(LEVELS), range=[-0.3, len(LEVELS) - 0.7])))
    for family in sorted({h["family"] for h in history}):
        points = [h for h in history if h["family"] == family and h.get("level") in LEVELS]
        figure.add_scatter(x=[p["ts"] for p in points], y=[LEVELS.index(p["level"]) for p in points],
                           mode="lines+markers", line_shape="hv", name=family)
    return figure


def family_means(table: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    return {f: sum(levels.values()) / len(levels) for f, levels in table.items() if levels}


def before_after_figure(evals: Mapping[str, Any]) -> go.Figure:
    title = "Held-out accuracy per family: before vs after training"
    before, after = family_means(evals.get("before") or {}), family_means(evals.get("after") or {})
    if not before and not after:
        return empty_figure(title, "No evaluation yet: a finished training run stores before/after accuracy.")
    families = sorted(set(before) | set(after))
    figure = go.Figure(layout=dict(LAYOUT, title=title, barmode="group", yaxis=dict(range=[0, 1], tickformat=".0%")))
    for name, means in (("before", before), ("after", after)):
        if means:
            figure.add_bar(x=families, y=[means.get(f) for f in families], name=name)
    return figure
