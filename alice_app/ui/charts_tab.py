"""Charts tab: every figure comes from the database through Services; empty data gives an empty
state that says how to fill it (see charts.py), and a run id that names no run says so in the
status line and in the training charts."""
from __future__ import annotations

from functools import partial

import gradio as gr

from alice_app.ui import charts
from alice_app.ui.failure_map import mode_counts
from alice_app.ui.inputs import optional_id, shown

HOW = "type the id of a run in the Training tab's Runs table, or leave the box blank for the newest run."
NEWEST = "Training charts: the newest run (type a run id to see another)."


def figures(services, run_id):
    """All nine figures for one run (blank = the newest run) and the bank/curriculum as they are; a
    bad run id leaves the four training charts empty, each saying what is wrong."""
    try:
        run, problem = find_run(services, run_id), None
    except ValueError as exc:
        run, problem = None, f"⚠ {exc}"
    metrics = services.runs.metrics(run["id"]) if run else []
    evals = services.runs.evals(run["id"]) if run else {}
    training = [
        charts.penalty_figure(evals),  # the headline: what training must drive to zero
        charts.before_after_figure(evals),
        charts.reward_accuracy_figure(metrics),
        charts.zero_std_figure(metrics),
    ]
    if problem:
        for figure in training:
            figure.update_annotations(text=charts.wrap(problem))
    return (
        *training,
        charts.counts_figure(services.bank.count_by("family"), "Failures by family"),
        charts.counts_figure(services.bank.count_by("mode"), "Failures by failure mode"),
        charts.failure_map_figure(services.bank.failure_map()),
        charts.failure_mode_map_figure(mode_counts(services)),
        charts.curriculum_figure(services.curriculum.history()),
    )


def find_run(services, run_id) -> dict | None:
    """The run the training charts show: the typed id, or the newest when blank (None: no run yet).
    ValueError says what is wrong with a typed id."""
    try:
        wanted = optional_id(run_id)
    except ValueError:
        raise ValueError(f"{shown(str(run_id).strip())} is not a run id: {HOW}") from None
    if wanted is None:
        runs = services.runs.list(limit=1)
        return runs[0] if runs else None
    run = services.runs.get(wanted)
    if run is None:
        raise ValueError(f"there is no run #{wanted}: {HOW}")
    return run


def run_status(services, run_id) -> str:
    """The line above the charts: which run the training charts show, or what is wrong with the id."""
    try:
        run = find_run(services, run_id)
    except ValueError as exc:
        return f"⚠ {exc}"
    return NEWEST if run is None or optional_id(run_id) is None else f"Training charts: run #{run['id']}."


def _chart() -> gr.Plot:
    return gr.Plot(show_label=False, elem_classes=["alice-chart"], min_width=380)


def build(services) -> dict:
    """Lay out the tab; returns the refresh event (run when the tab is opened)."""
    with gr.Row():
        run_id = gr.Textbox(label="Run id for the training charts (blank = newest)", placeholder="e.g. 3")
        refresh_button = gr.Button("Refresh charts", variant="primary")
    status = gr.Markdown(NEWEST, elem_id="charts-status")
    with gr.Row():
        penalty = _chart()
        before_after = _chart()
    with gr.Row():
        reward = _chart()
        zero_std = _chart()
    with gr.Row():
        by_family = _chart()
        by_mode = _chart()
    with gr.Row():
        failure_map = _chart()
        mode_map = _chart()
    with gr.Row():
        curriculum = _chart()
    refresh = dict(fn=partial(figures, services), inputs=[run_id],
                   outputs=[penalty, before_after, reward, zero_std, by_family, by_mode, failure_map, mode_map,
                            curriculum])
    refresh_button.click(**refresh, api_name="refresh_charts")
    # Its own event, so /refresh_charts keeps its nine figures; it follows the box as it is typed in.
    gr.on([refresh_button.click, run_id.change], partial(run_status, services), [run_id], [status],
          api_name="charts_run_status")
    return refresh
