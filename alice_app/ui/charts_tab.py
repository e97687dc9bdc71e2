"""Charts tab: every figure comes from the database through Services; empty data gives an empty
state that says how to fill it (see charts.py)."""
from __future__ import annotations

from functools import partial

import gradio as gr

from alice_app.ui import charts
from alice_app.ui.failure_map import mode_counts
from alice_app.ui.inputs import optional_id


def figures(services, run_id):
    """All nine figures for one run (blank = the newest run) and the bank/curriculum as they are."""
    try:
        run = _run(services, run_id)
    except ValueError:  # an unreadable run id shows the newest run rather than nothing
        run = _run(services, None)
    metrics = services.runs.metrics(run["id"]) if run else []
    evals = services.runs.evals(run["id"]) if run else {}
    return (
        charts.penalty_figure(evals),  # the headline: what training must drive to zero
        charts.before_after_figure(evals),
        charts.reward_accuracy_figure(metrics),
        charts.zero_std_figure(metrics),
        charts.counts_figure(services.bank.count_by("family"), "Failures by family"),
        charts.counts_figure(services.bank.count_by("mode"), "Failures by failure mode"),
        charts.failure_map_figure(services.bank.failure_map()),
        charts.failure_mode_map_figure(mode_counts(services)),
        charts.curriculum_figure(services.curriculum.history()),
    )


def _run(services, run_id):
    if optional_id(run_id):
        return services.runs.get(optional_id(run_id))
    runs = services.runs.list(limit=1)
    return runs[0] if runs else None


def _chart() -> gr.Plot:
    return gr.Plot(show_label=False, elem_classes=["alice-chart"], min_width=380)


def build(services) -> dict:
    """Lay out the tab; returns the refresh event (run when the tab is opened)."""
    with gr.Row():
        run_id = gr.Textbox(label="Run id for the training charts (blank = newest)", placeholder="e.g. 3")
        refresh_button = gr.Button("Refresh charts", variant="primary")
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
    return refresh
