"""Curriculum tab: each family's level and rolling accuracy; thresholds, zone and the hunt/repair
mix (shares typed as 0.3 or 30%, validated by ``CurriculumConfig.validate``); pin/unpin a level;
reset with confirmation. Every write here needs the admin password when one is configured."""
from __future__ import annotations

import re
from dataclasses import replace
from functools import partial

import gradio as gr

from alice_app.types import LEVELS
from alice_app.ui import formatting as fmt
from alice_app.ui import inputs
from alice_app.ui.episode import default_family, family_choices
from alice_app.ui.guard import bind, refusal

CONFIG_FIELDS = ("window", "promote_at", "demote_at", "min_samples", "zone_low", "zone_high", "repair_mix")
# Each form box: its label, and the bounds of the whole-number boxes; the others are shares (0..1).
LABELS = {"window": "Window (answers)", "promote_at": "Promote at (accuracy)", "demote_at": "Demote at (accuracy)",
          "min_samples": "Min samples before moving", "zone_low": "Discrimination zone, low pass rate",
          "zone_high": "Discrimination zone, high pass rate", "repair_mix": "Hunt/repair mix"}
BOUNDS = {"window": (1, 10_000), "min_samples": (1, 10_000)}


def config_from_form(window, promote_at, demote_at, min_samples, zone_low, zone_high, repair_mix):
    """The form as a validated CurriculumConfig; ValueError names the box in the words of its label."""
    from alice_app.curriculum import CurriculumConfig

    raw = dict(zip(CONFIG_FIELDS, (window, promote_at, demote_at, min_samples, zone_low, zone_high, repair_mix)))
    values = {}
    for name, value in raw.items():
        if name in BOUNDS:
            low, high = BOUNDS[name]
            values[name] = inputs.parse_number(LABELS[name], value, whole=True, low=low, high=high)
        else:  # a share, typed as 0.3 or as 30% (the summary writes percentages)
            values[name] = inputs.parse_fraction(LABELS[name], value)
    low, high = values.pop("zone_low"), values.pop("zone_high")
    if low >= high:  # named by its two boxes, not as the setting "zone"
        raise ValueError(f"“{LABELS['zone_low']}” ({low:g}) must be below “{LABELS['zone_high']}” ({high:g}).")
    try:
        return CurriculumConfig(**values, zone=(low, high)).validate()
    except ValueError as exc:
        raise ValueError(in_words(str(exc))) from None


def in_words(message: str) -> str:
    """A validation message with the settings' code names replaced by the labels the user sees."""
    names = {**LABELS, "zone": "discrimination zone"}
    return re.sub(r"\b(" + "|".join(names) + r")\b", lambda m: f"“{names[m[1]]}”", message)


def form_from_config(config) -> tuple:
    values = (config.window, config.promote_at, config.demote_at, config.min_samples,
              config.zone[0], config.zone[1], config.repair_mix)
    return tuple(f"{value:g}" for value in values)


def show_table(services) -> tuple:
    """The per-family table and the saved settings in words."""
    from alice_app.curriculum import rolling_accuracy

    states = services.curriculum.load(family_choices())
    config = services.curriculum.load_config()
    return fmt.curriculum_rows(states, rolling_accuracy), fmt.format_curriculum_config(config)


def show(services) -> tuple:
    """The table, the summary and the form filled with the saved settings."""
    return (*show_table(services), *form_from_config(services.curriculum.load_config()))


def save_config(services, *form, request: gr.Request = None):
    *form, password = form
    problem = refusal(services, password, request)
    if problem:
        return problem
    try:
        config = config_from_form(*form)
    except ValueError as exc:
        return f"⚠ Not saved: {exc}"
    services.curriculum.save_config(config)
    return "Curriculum settings saved."


def pin(services, family, level, password, request: gr.Request = None):
    from alice_app.curriculum import pin as pin_state

    problem = refusal(services, password, request)
    if problem:
        return problem
    if family not in family_choices() or level not in LEVELS:
        return "⚠ Pick a family and a level to pin."
    state = services.curriculum.load([family])[family]
    services.curriculum.save(pin_state(state, level))
    return fmt.format_pinned(family, level, state.level, len(state.outcomes))


def unpin(services, family, password, request: gr.Request = None):
    problem = refusal(services, password, request)
    if problem:
        return problem
    if family not in family_choices():
        return "⚠ Pick a family to unpin."
    state = services.curriculum.load([family])[family]
    services.curriculum.save(replace(state, pinned=None))
    return f"{family} unpinned: it moves with its rolling accuracy again."


def reset(services, confirmed, password, request: gr.Request = None):
    problem = refusal(services, password, request)
    if problem:
        return problem
    if not confirmed:
        return "⚠ Tick **I confirm** to reset every family to easy and clear its history."
    services.curriculum.reset()
    return "Curriculum reset: every family starts again at easy."


def build(services) -> dict:
    """Lay out the tab; returns the refresh event (run on load and when the tab is opened)."""
    table = gr.Dataframe(headers=fmt.CURRICULUM_COLUMNS, interactive=False, label="Families")
    summary = gr.Markdown(elem_id="curriculum-summary")
    password = gr.Textbox(label="Admin password (every change on this tab)", type="password",
                          visible=services.admin.required, elem_id="curriculum-password")
    with gr.Row():
        window = gr.Textbox(label=LABELS["window"])
        promote_at = gr.Textbox(label=LABELS["promote_at"])
        demote_at = gr.Textbox(label=LABELS["demote_at"])
        min_samples = gr.Textbox(label=LABELS["min_samples"])
    with gr.Row():
        zone_low = gr.Textbox(label=LABELS["zone_low"])
        zone_high = gr.Textbox(label=LABELS["zone_high"])
        repair_mix = gr.Textbox(label="Hunt/repair mix (share of repair tasks: 0.3 or 30%)")
        with gr.Column(min_width=160):
            save = gr.Button("Save settings", variant="primary")
            save_status = gr.Markdown(elem_id="curriculum-save-status")  # right under the button it answers
    with gr.Row():
        families = family_choices()
        family = gr.Dropdown(families, value=default_family(families), label="Family")
        level = gr.Dropdown(list(LEVELS), value="easy", label="Level")
        pin_button, unpin_button = gr.Button("Pin level"), gr.Button("Unpin")
    with gr.Accordion("Reset the curriculum", open=False):
        confirm = gr.Checkbox(label="I confirm: reset every family to easy")
        reset_button = gr.Button("Reset", variant="stop")
    status = gr.Markdown(elem_id="curriculum-status")

    form = [window, promote_at, demote_at, min_samples, zone_low, zone_high, repair_mix]
    refresh = dict(fn=partial(show, services), inputs=None, outputs=[table, summary, *form])
    # After an edit only the table is redrawn, so a rejected form keeps what the user typed.
    redraw = dict(fn=partial(show_table, services), inputs=None, outputs=[table, summary])
    actions = (
        (save, bind(save_config, services), [*form, password], save_status, "save_curriculum"),
        (pin_button, bind(pin, services), [family, level, password], status, "pin_level"),
        (unpin_button, bind(unpin, services), [family, password], status, "unpin_level"),
        (reset_button, bind(reset, services), [confirm, password], status, "reset_curriculum"),
    )
    for button, fn, sources, shown_in, name in actions:
        after = refresh if name == "reset_curriculum" else redraw
        button.click(fn, sources, shown_in, api_name=name).then(**after, api_name=f"{name}_refresh",
                                                               api_visibility="private")
    return refresh
