"""Curriculum tab: each family's level and rolling accuracy; thresholds, zone and the hunt/repair
mix (validated by ``CurriculumConfig.validate``); pin/unpin a level; reset with confirmation."""
from __future__ import annotations

from dataclasses import replace
from functools import partial

import gradio as gr

from alice_app.types import LEVELS
from alice_app.ui import formatting as fmt
from alice_app.ui import inputs
from alice_app.ui.episode import default_family, family_choices

CONFIG_FIELDS = ("window", "promote_at", "demote_at", "min_samples", "zone_low", "zone_high", "repair_mix")


def config_from_form(window, promote_at, demote_at, min_samples, zone_low, zone_high, repair_mix):
    """The form as a validated CurriculumConfig; ValueError (from validate) carries the message."""
    from alice_app.curriculum import CurriculumConfig

    try:
        config = CurriculumConfig(
            window=int(window), promote_at=float(promote_at), demote_at=float(demote_at),
            min_samples=int(min_samples), zone=(float(zone_low), float(zone_high)), repair_mix=float(repair_mix))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"Every field needs a number ({exc}).") from None
    config.validate()
    return config


def form_from_config(config) -> tuple:
    return (config.window, config.promote_at, config.demote_at, config.min_samples,
            config.zone[0], config.zone[1], config.repair_mix)


def show_table(services) -> tuple:
    """The per-family table and the saved settings in words."""
    from alice_app.curriculum import rolling_accuracy

    states = services.curriculum.load(family_choices())
    config = services.curriculum.load_config()
    return fmt.curriculum_rows(states, rolling_accuracy), fmt.format_curriculum_config(config)


def show(services) -> tuple:
    """The table, the summary and the form filled with the saved settings."""
    return (*show_table(services), *form_from_config(services.curriculum.load_config()))


def save_config(services, *form):
    try:
        config = config_from_form(*form)
    except ValueError as exc:
        return f"⚠ Not saved: {exc}"
    services.curriculum.save_config(config)
    return "Curriculum settings saved."


def pin(services, family, level):
    if not family or level not in LEVELS:
        return "⚠ Pick a family and a level to pin."
    state = services.curriculum.load([family])[family]
    services.curriculum.save(replace(state, level=level, pinned=level, outcomes=()))
    return f"{family} pinned at {level}: it stays there until unpinned."


def unpin(services, family):
    if not family:
        return "⚠ Pick a family to unpin."
    state = services.curriculum.load([family])[family]
    services.curriculum.save(replace(state, pinned=None))
    return f"{family} unpinned: it moves with its rolling accuracy again."


def reset(services, confirmed, password):
    try:
        inputs.check_admin(services.settings.admin_password, password)
    except PermissionError as exc:
        return f"⚠ {exc}"
    if not confirmed:
        return "⚠ Tick **I confirm** to reset every family to easy and clear its history."
    services.curriculum.reset()
    return "Curriculum reset: every family starts again at easy."


def build(services) -> dict:
    """Lay out the tab; returns the refresh event (run on load and when the tab is opened)."""
    table = gr.Dataframe(headers=fmt.CURRICULUM_COLUMNS, interactive=False, label="Families")
    summary = gr.Markdown(elem_id="curriculum-summary")
    with gr.Row():
        window = gr.Number(label="Window (answers)", precision=0)
        promote_at = gr.Number(label="Promote at (accuracy)")
        demote_at = gr.Number(label="Demote at (accuracy)")
        min_samples = gr.Number(label="Min samples before moving", precision=0)
    with gr.Row():
        zone_low = gr.Number(label="Discrimination zone: low pass rate")
        zone_high = gr.Number(label="Discrimination zone: high pass rate")
        repair_mix = gr.Slider(0, 1, step=0.05, label="Hunt/repair mix (share of repair tasks)")
        save = gr.Button("Save settings", variant="primary")
    with gr.Row():
        families = family_choices()
        family = gr.Dropdown(families, value=default_family(families), label="Family")
        level = gr.Dropdown(list(LEVELS), value="easy", label="Level")
        pin_button, unpin_button = gr.Button("Pin level"), gr.Button("Unpin")
    with gr.Accordion("Reset the curriculum", open=False):
        confirm = gr.Checkbox(label="I confirm: reset every family to easy")
        password = gr.Textbox(label="Admin password", type="password", visible=bool(services.settings.admin_password))
        reset_button = gr.Button("Reset", variant="stop")
    status = gr.Markdown(elem_id="curriculum-status")

    form = [window, promote_at, demote_at, min_samples, zone_low, zone_high, repair_mix]
    refresh = dict(fn=partial(show, services), inputs=None, outputs=[table, summary, *form])
    # After an edit only the table is redrawn, so a rejected form keeps what the user typed.
    redraw = dict(fn=partial(show_table, services), inputs=None, outputs=[table, summary])
    actions = (
        (save, partial(save_config, services), form, "save_curriculum"),
        (pin_button, partial(pin, services), [family, level], "pin_level"),
        (unpin_button, partial(unpin, services), [family], "unpin_level"),
        (reset_button, partial(reset, services), [confirm, password], "reset_curriculum"),
    )
    for button, fn, sources, name in actions:
        after = refresh if name == "reset_curriculum" else redraw
        button.click(fn, sources, status, api_name=name).then(**after, api_name=f"{name}_refresh",
                                                             api_visibility="private")
    return refresh
