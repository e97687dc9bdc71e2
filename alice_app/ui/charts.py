"""Plotly figure builders: plain data in, a ``go.Figure`` out; an empty input gives an empty state.

An empty state is a blank figure whose only text says what to do to fill it, so a chart never
shows invented data.
"""
from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import plotly.graph_objects as go

from alice_app.types import FAILURE_MODES, LEVELS
from alice_app.ui.formatting import flatten_metrics

# Plotly's mode bar sits in each chart's top-right corner; on a phone it spans the whole width. So
# titles start below it (MODEBAR px), the top margin leaves room for both, and the buttons that do
# nothing on these charts (select, lasso, zoom steps) are removed so the bar stays one short row.
MODEBAR = 30  # px: the bar's height (25) and a little air
TOP = MODEBAR + 42  # px: a one-line title and a gap above the plot
TOP_LABELS = 60  # px more for x labels drawn above a heat map (slanted failure-mode names)
LAYOUT = dict(template="plotly_white", height=360, margin=dict(l=50, r=20, t=TOP, b=40),
              modebar=dict(remove=["select2d", "lasso2d", "zoomIn2d", "zoomOut2d", "autoScale2d"]))


def layout(title: str, **extra: Any) -> dict:
    """The common layout with ``title`` pinned below the mode bar; ``extra`` adds or overrides keys."""
    return dict(LAYOUT, title=dict(text=title, yref="container", y=1, yanchor="top", pad=dict(t=MODEBAR)), **extra)


def empty_figure(title: str, message: str) -> go.Figure:
    figure = go.Figure(layout=layout(title))
    figure.add_annotation(text=wrap(message), showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper",
                          font=dict(size=14, color="#666"))
    figure.update_xaxes(visible=False)
    figure.update_yaxes(visible=False)
    return figure


def wrap(text: str, width: int = 40) -> str:
    """Plotly does not wrap annotations: break a long message into lines (readable at 412 px)."""
    import textwrap

    return "<br>".join(textwrap.wrap(text, width)) or text


def is_empty(figure: go.Figure) -> bool:
    return not figure.data


def _series(metrics: Sequence[Mapping[str, Any]], key: str) -> tuple[list, list]:
    flat = [flatten_metrics(row) for row in metrics]
    points = [(row.get("step"), row[key]) for row in flat if row.get(key) is not None]
    return [p[0] for p in points], [p[1] for p in points]


def step_axis(steps: Sequence[Any]) -> dict:
    """An x axis of whole steps: no tick at 1.2 (issue 12, bug 8), at most about 10 ticks."""
    last = max((s for s in steps if isinstance(s, (int, float))), default=1)
    return dict(title="step", tickformat="d", dtick=max(1, math.ceil(last / 10)), rangemode="tozero")


def metrics_figure(metrics: Sequence[Mapping[str, Any]], keys: Sequence[str], title: str, empty: str) -> go.Figure:
    figure = go.Figure(layout=layout(title))
    for key in keys:
        steps, values = _series(metrics, key)
        if steps:
            figure.add_scatter(x=steps, y=values, mode="lines+markers", name=key)
    if is_empty(figure):
        return empty_figure(title, empty)
    figure.update_layout(xaxis=step_axis([x for trace in figure.data for x in trace.x]))
    return figure


def reward_accuracy_figure(metrics: Sequence[Mapping[str, Any]]) -> go.Figure:
    return metrics_figure(metrics, ("reward", "accuracy"), "Reward and accuracy per step",
                          "No training metrics yet: start a run in the Training tab.")


def zero_std_figure(metrics: Sequence[Mapping[str, Any]]) -> go.Figure:
    figure = metrics_figure(metrics, ("frac_outcome_uniform", "frac_reward_zero_std"),
                            "Groups that teach nothing (share of the step's groups)",
                            "No GRPO metrics yet: start a GRPO run in the Training tab.")
    return figure if is_empty(figure) else figure.update_layout(yaxis_range=[0, 1.05])


def live_training_figure(metrics: Sequence[Mapping[str, Any]]) -> go.Figure:
    """The Training tab's live chart: reward, accuracy and the share of one-outcome groups on one step axis."""
    figure = metrics_figure(metrics, ("reward", "accuracy", "frac_outcome_uniform"), "This run, step by step",
                            "The chart fills in after the first training step.")
    return figure if is_empty(figure) else figure.update_layout(legend=dict(orientation="h", y=-0.25))


def counts_figure(counts: Mapping[str, int], title: str) -> go.Figure:
    if not counts or not any(counts.values()):
        return empty_figure(title, "The failure bank is empty: play episodes or run a hunt to fill it.")
    ordered = sorted(counts.items(), key=lambda item: (-item[1], str(item[0])))
    figure = go.Figure(layout=layout(title, yaxis=dict(
        title="failures", tickformat="d", dtick=max(1, math.ceil(ordered[0][1] / 8)), rangemode="tozero")))
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
    figure = go.Figure(layout=layout(title, height=max(320, 80 + 36 * len(families))))
    figure.add_heatmap(z=grid, x=levels, y=families, zmin=0, zmax=1, colorscale="Reds",
                       colorbar=dict(title="rate"), hoverongaps=False,
                       text=[["" if v is None else f"{100 * v:.0f}%" for v in row] for row in grid],
                       texttemplate="%{text}")
    return figure


def curriculum_figure(history: Sequence[Mapping[str, Any]]) -> go.Figure:
    title = "Curriculum level over time"
    if not history:
        return empty_figure(title, "No curriculum changes yet: play episodes, hunt or train to move the levels.")
    figure = go.Figure(layout=layout(title, yaxis=dict(
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
    figure = go.Figure(layout=layout(title, barmode="group", yaxis=dict(range=[0, 1], tickformat=".0%")))
    for name, means in (("before", before), ("after", after)):
        if means:
            figure.add_bar(x=families, y=[means.get(f) for f in families], name=name)
    return figure


def before_after_heatmap(evals: Mapping[str, Any]) -> go.Figure:
    """Family × level heatmap of the change in held-out accuracy (after − before, in points);
    each cell's text reads "10% → 30%"."""
    from alice_app.ui.progress import accuracy_table

    title = "Held-out accuracy: after − before (points)"
    before, after = accuracy_table(evals.get("before")), accuracy_table(evals.get("after"))
    families = sorted(set(before) & set(after))
    levels = [lv for lv in LEVELS if any(lv in after[f] and lv in before[f] for f in families)]
    if not families or not levels:
        return empty_figure(title, "No before/after pair yet: a completed run with held-out tasks stores both.")
    z = [[_delta(before[f].get(lv), after[f].get(lv)) for lv in levels] for f in families]
    text = [[_cell_text(before[f].get(lv), after[f].get(lv)) for lv in levels] for f in families]
    figure = go.Figure(layout=layout(title, height=max(320, 100 + 40 * len(families))))
    figure.add_heatmap(z=z, x=levels, y=families, zmid=0, zmin=-100, zmax=100, colorscale="RdBu",
                       text=text, texttemplate="%{text}", hoverongaps=False, colorbar=dict(title="points"))
    return figure


def _delta(before: float | None, after: float | None) -> float | None:
    return None if before is None or after is None else round(100 * (after - before), 1)


def _cell_text(before: float | None, after: float | None) -> str:
    return "" if before is None or after is None else f"{100 * before:.0f}% → {100 * after:.0f}%"


def mode_map_grid(rows: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[str], list[list[int]]]:
    """family × failure mode counts from ``{"family", "mode", "n"}`` rows (modes in FAILURE_MODES order)."""
    families = sorted({r["family"] for r in rows})
    modes = [m for m in FAILURE_MODES if any(r["mode"] == m for r in rows)]
    count = {(r["family"], r["mode"]): int(r["n"]) for r in rows}
    return families, modes, [[count.get((f, m), 0) for m in modes] for f in families]


def failure_mode_map_figure(rows: Sequence[Mapping[str, Any]], title: str = "Failure map: family × failure mode"
                            ) -> go.Figure:
    """The bank as a heatmap; clicking a cell (in the Failure bank tab) filters the list to it."""
    families, modes, grid = mode_map_grid(rows)
    if not families:
        return empty_figure(title, "The failure bank is empty: play episodes or run a hunt to fill it.")
    figure = go.Figure(layout=layout(title, height=max(360, 160 + 40 * len(families)),
                                     margin=dict(LAYOUT["margin"], t=TOP + TOP_LABELS)))
    figure.add_heatmap(z=[[v or None for v in row] for row in grid], x=modes, y=families, colorscale="Reds", zmin=0,
                       zmax=max(1, max(max(row) for row in grid)),
                       text=[[str(v) if v else "" for v in row] for row in grid], texttemplate="%{text}",
                       hoverongaps=False, colorbar=dict(title="failures"),
                       hovertemplate="%{y} · %{x}: %{z} failures<extra></extra>")
    figure.update_xaxes(side="top", tickangle=-20)
    return figure


def penalty_figure(evals: Mapping[str, Any]) -> go.Figure:
    """Distraction penalty per family (control twin − family accuracy, mean of easy and medium),
    before vs after training, from the twin rows a run stores with its evaluation."""
    from alice_app.evaluation import headline_penalties, penalty_from_table

    title = "Distraction penalty (control − family, easy/medium)"
    means = {phase: headline_penalties(penalty_from_table(evals.get(phase) or {})) for phase in ("before", "after")}
    families = sorted(set(means["before"]) | set(means["after"]))
    if not families:
        return empty_figure(title, "No penalty yet: a training run's before/after evaluation measures each "
                                   "family beside its control twin.")
    figure = go.Figure(layout=layout(title, barmode="group", yaxis=dict(tickformat=".0%")))
    for phase, values in means.items():
        if values:
            figure.add_bar(x=families, y=[values.get(f) for f in families], name=phase)
    return figure
