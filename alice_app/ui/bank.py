"""Failure bank tab: a server-side paginated table with filters, a detail view, tags, notes,
repair marks, a recheck with a trained model, exports and deletion. Tags, notes, repair marks, the recheck
and deletion need the admin password when one is configured; browsing, searching and exporting do not."""
from __future__ import annotations

import random
from functools import partial

import gradio as gr

from alice_app.services import MAX_RECHECK_FAILURES, recheck_failures, trained_adapters, turn_modes
from alice_app.types import FAILURE_MODES, LEVELS
from alice_app.ui import exports
from alice_app.ui import failure_map as fm
from alice_app.ui import formatting as fmt
from alice_app.ui import inputs
from alice_app.ui.episode import family_choices
from alice_app.ui.guard import bind, refusal

PAGE_SIZES = [25, 50, 100]
REPAIRED_CHOICES = [inputs.ALL, "unrepaired", "repaired"]
NOT_TRAINING = "all but training"  # the default: a training run's many junk failures stay out of view
TRAINING_SOURCE = "train"


def source_choices(known: list[str]) -> list[str]:
    return [NOT_TRAINING, inputs.ALL, *sorted(set(known) | {"hunt", "manual", "repair", TRAINING_SOURCE})]


def source_filter(choice: str | None, known: list[str]):
    """The Source dropdown as a filter value: one source, every source, or all but training."""
    if choice in (None, "", NOT_TRAINING):
        # With no non-training source in the bank, any non-training name matches nothing, as it should.
        return [s for s in known if s != TRAINING_SOURCE] or ["manual"]
    return inputs.filter_value(choice)


def query_filters(family, level, mode, tag, repaired, since, until, search, source=NOT_TRAINING,
                  known_sources=()) -> dict:
    """The filter form as FailureBank.query keyword arguments; bad input raises ValueError."""
    return {
        "family": inputs.filter_value(family), "level": inputs.filter_value(level), "mode": inputs.filter_value(mode),
        "tag": inputs.parse_tag_filter(tag), "repaired": inputs.parse_repaired(repaired),
        "since": inputs.parse_date(since), "until": inputs.parse_date(until),
        "search": inputs.parse_search(search), "source": source_filter(source, list(known_sources)),
    }


def search(services, family, level, mode, tag, repaired, since, until, text, source, page, page_size):
    """One page of the table; the page number is clamped to the pages that exist."""
    try:
        filters = query_filters(family, level, mode, tag, repaired, since, until, text, source,
                                services.bank.count_by("source"))
    except ValueError as exc:
        return gr.skip(), f"⚠ {exc}", gr.skip()
    size = page_size if page_size in PAGE_SIZES else 50
    result = services.bank.query(**filters, page=inputs.parse_page(page), page_size=size)
    last = fmt.page_count(result.total, size)
    if result.page > last:  # the filter shrank the result under the current page
        result = services.bank.query(**filters, page=last, page_size=size)
    info = fmt.format_page_info(result.total, result.page, size)
    problem = inputs.page_problem(page)  # e.g. "abc": page 1 is shown, and the reason said
    return fmt.failure_rows(result.rows), f"⚠ {problem} · {info}" if problem else info, str(result.page)


def open_failure(services, failure_id):
    """The detail view and the notes box. The Tags box is left alone: filled with the open
    failure's tags, "Remove tags" would remove all of them."""
    try:
        failure_id = inputs.optional_id(failure_id)
    except ValueError as exc:
        return f"⚠ {exc}", ""
    row = services.bank.get(failure_id) if failure_id else None
    if failure_id and row is None:
        return f"⚠ There is no failure #{failure_id}.", ""
    modes = turn_modes(row["task"], row["history"]) if row and row.get("history") else []
    return fmt.format_failure_detail(row, modes), (row or {}).get("notes") or ""


def selected_id(evt: gr.SelectData):
    """Clicking any cell of a row opens that row (its id is the first column)."""
    row = evt.row_value or []
    return row[0] if row else gr.skip()


def change_tags(services, ids_text, tags_text, open_id, password, request: gr.Request = None, remove: bool = False):
    problem = refusal(services, password, request)
    if problem:
        return problem
    try:
        ids = inputs.parse_ids(ids_text) or _open_ids(open_id)
        tags = inputs.parse_tags(tags_text)
    except ValueError as exc:
        return f"⚠ {exc}"
    if not ids or not tags:
        return "⚠ Give the failure ids (or open one) and at least one tag."
    (services.bank.remove_tags if remove else services.bank.add_tags)(ids, tags)
    verb = "Removed" if remove else "Added"
    return f"{verb} {', '.join(tags)} {'from' if remove else 'to'} {len(ids)} failure{'s' if len(ids) > 1 else ''}."


def save_notes(services, open_id, notes, password, request: gr.Request = None):
    problem = refusal(services, password, request)
    if problem:
        return problem
    open_id = _safe_id(open_id)
    if not open_id or services.bank.get(open_id) is None:
        return "⚠ Open a failure first."
    try:
        services.bank.set_notes(open_id, notes or "")
    except ValueError as exc:  # e.g. notes over the size limit; nothing is lost from the box
        return f"⚠ {exc}"
    return f"Notes of failure #{open_id} saved."


def mark_repaired(services, ids_text, open_id, password, request: gr.Request = None, repaired: bool = True):
    problem = refusal(services, password, request)
    if problem:
        return problem
    try:
        ids = inputs.parse_ids(ids_text) or _open_ids(open_id)
    except ValueError as exc:
        return f"⚠ {exc}"
    if not ids:
        return "⚠ Give the failure ids (or open one)."
    return fmt.format_marked(services.bank.set_repaired(ids, repaired), len(ids), repaired)


def delete(services, ids_text, open_id, confirmed, password, request: gr.Request = None):
    problem = refusal(services, password, request)
    if problem:
        return problem
    try:
        ids = inputs.parse_ids(ids_text) or _open_ids(open_id)
    except ValueError as exc:
        return f"⚠ {exc}"
    if not ids:
        return "⚠ Give the failure ids to delete (or open one)."
    if not confirmed:
        return f"⚠ Tick **I confirm** to delete {len(ids)} failure{'s' if len(ids) > 1 else ''}; this cannot be undone."
    return f"Deleted {services.bank.delete(ids)} failure(s)."


WORKBENCH_MODEL = "the workbench's current model"


def model_choices(services) -> list[tuple[str, str]]:
    """The Recheck menu: each completed run's adapter (newest first), then the workbench's own model."""
    return [*trained_adapters(services), (WORKBENCH_MODEL, "")]


def refresh_models(services, pick: int = 0):
    """The model menu's choices again (a run may have completed since), choice ``pick`` selected."""
    choices = model_choices(services)
    return gr.update(choices=choices, value=choices[pick][1])


def recheck(services, adapter, count, password, request: gr.Request = None, seed: int | None = None):
    """Replay the newest unrepaired failures on fresh variants with the chosen model; rows whose variants are
    all solved unaided are marked repaired (``services.recheck_failures``). The result says which, and how to
    replay the same recheck from the command line."""
    from alice_app.hunt import RECHECK_VARIANTS
    from alice_app.models.base import BackendError
    from alice_app.models.loader import ModelNotFoundError

    problem = refusal(services, password, request)
    if problem:
        return problem
    try:
        failures = inputs.parse_number("Failures to recheck", count, whole=True, low=1, high=MAX_RECHECK_FAILURES)
    except ValueError as exc:
        return f"⚠ {exc}"
    known = dict((path, label) for label, path in model_choices(services))
    if adapter not in known:
        return "⚠ Choose a model from the list (a run's adapter appears once the run completes)."
    seed = random.randrange(2**31) if seed is None else seed
    try:
        report = recheck_failures(services, adapter or None, failures, seed)
    except (ValueError, ModelNotFoundError, BackendError) as exc:
        return f"⚠ {exc}"
    return fmt.format_recheck(report.repair_outcomes(), len(report.results), known[adapter],
                              replay=f"python -m alice_app hunt --strategy recheck --episodes "
                                     f"{failures * RECHECK_VARIANTS} --seed {seed}"
                                     + (f" --adapter {adapter}" if adapter else ""))


def export_filtered(exporter, services, family, level, mode, tag, repaired, since, until, text, source):
    """``exporter(services, filters)`` over the failures under the current filter (the table's rows)."""
    try:
        filters = query_filters(family, level, mode, tag, repaired, since, until, text, source,
                                services.bank.count_by("source"))
    except ValueError as exc:
        return None, f"⚠ {exc}"
    return exporter(services, filters)


export_jsonl = partial(export_filtered, exports.export_jsonl)
export_dpo = partial(export_filtered, exports.export_dpo)


def show_map(services, level, source):
    """The failure map under the Level and Source filters (a clicked cell sets Family and Mode)."""
    chosen = source_filter(source, list(services.bank.count_by("source")))
    return fm.styled(fm.map_rows(fm.mode_counts(services, inputs.filter_value(level), chosen)))


def _open_ids(open_id) -> list[int]:
    return [inputs.optional_id(open_id)] if inputs.optional_id(open_id) else []


def _safe_id(value) -> int | None:
    try:
        return inputs.optional_id(value)
    except ValueError:
        return None


def build(services) -> dict:
    """Lay out the tab; returns the table refresh (run on load and when the tab is opened)."""
    with gr.Row():
        family = gr.Dropdown([inputs.ALL, *family_choices()], value=inputs.ALL, label="Family")
        level = gr.Dropdown([inputs.ALL, *LEVELS], value=inputs.ALL, label="Level")
        mode = gr.Dropdown([inputs.ALL, *FAILURE_MODES], value=inputs.ALL, label="Failure mode", elem_id="bank-mode")
        repaired = gr.Dropdown(REPAIRED_CHOICES, value=inputs.ALL, label="Repaired")
        source = gr.Dropdown(source_choices(list(services.bank.count_by("source"))), value=NOT_TRAINING,
                             label="Source", info="hunt, manual (workbench), repair, train (training runs)")
    with gr.Row():
        tag = gr.Textbox(label="Tag", placeholder="e.g. review")
        since = gr.Textbox(label="Since (YYYY-MM-DD)")
        until = gr.Textbox(label="Until (YYYY-MM-DD)")
        text = gr.Textbox(label="Search (prompt, response, notes)", scale=2)
    with gr.Row():
        run_search = gr.Button("Search", variant="primary")
        prev_page, next_page = gr.Button("◀ Previous"), gr.Button("Next ▶")
        page = gr.Textbox("1", label="Page")
        page_size = gr.Dropdown(PAGE_SIZES, value=50, label="Rows per page")
    with gr.Accordion("Failure map: family × failure mode (click a cell to filter the list)", open=True):
        mode_map = gr.Dataframe(headers=fm.COLUMNS, interactive=False, elem_id="bank-failure-map",
                                label="Failures per family and mode, under the Level and Source filters")
    page_info = gr.Markdown(elem_id="bank-page-info")
    table = gr.Dataframe(headers=fmt.FAILURE_COLUMNS, interactive=False, wrap=True, label="Failures (click a row)")
    with gr.Row():
        with gr.Column(scale=3):
            with gr.Row():
                open_id = gr.Textbox(label="Failure id", placeholder="e.g. 12")
                open_button = gr.Button("Open")
            detail = gr.Markdown(fmt.format_failure_detail(None), elem_id="bank-detail")
        with gr.Column(scale=2):
            password = gr.Textbox(label="Admin password (tags, notes, repair marks, delete)", type="password",
                                  visible=services.admin.required, elem_id="bank-password")
            ids = gr.Textbox(label="Ids to act on (e.g. 3, 7, 10-12; blank = the open failure)")
            tags = gr.Textbox(label="Tags (comma-separated)", elem_id="bank-tags")
            with gr.Row():
                add_tag, remove_tag = gr.Button("Add tags"), gr.Button("Remove tags")
            with gr.Row():
                repaired_on, repaired_off = gr.Button("Mark repaired"), gr.Button("Mark unrepaired")
            action = gr.Markdown(elem_id="bank-status")
            notes = gr.Textbox(label="Notes", lines=3)
            save = gr.Button("Save notes")
            with gr.Accordion("Recheck with a trained model", open=False):
                gr.Markdown(f"Replays the newest unrepaired failures, each on 3 fresh variants (same template, new "
                            f"numbers); a failure whose variants the model all solves unaided is marked repaired. "
                            f"Up to {MAX_RECHECK_FAILURES} failures a click (3 first attempts each, by the chosen model; "
                            f"a variant it gets wrong is banked).")
                choices = model_choices(services)
                recheck_model = gr.Dropdown(choices, value=choices[0][1], label="Model", elem_id="bank-recheck-model")
                with gr.Row():
                    recheck_count = gr.Number(5, label="Failures to recheck", precision=0, minimum=1,
                                              maximum=MAX_RECHECK_FAILURES, elem_id="bank-recheck-count")
                    recheck_button = gr.Button("Recheck", elem_id="bank-recheck")
            with gr.Accordion("Export", open=False):
                with gr.Row():
                    jsonl = gr.Button("Export JSONL (current filter)")
                    dpo = gr.Button("Export DPO pairs (current filter)")
                download = gr.File(label="Download", interactive=False)
            with gr.Accordion("Delete", open=False):
                confirm = gr.Checkbox(label="I confirm: delete these failures for good")
                remove = gr.Button("Delete", variant="stop")

    filters = [family, level, mode, tag, repaired, since, until, text, source]
    refresh = dict(fn=partial(search, services), inputs=[*filters, page, page_size], outputs=[table, page_info, page])
    reopen = dict(fn=partial(open_failure, services), inputs=[open_id], outputs=[detail, notes])
    redraw_map = dict(fn=partial(show_map, services), inputs=[level, source], outputs=mode_map)
    run_search.click(**refresh, api_name="search_failures").then(**redraw_map, api_name="failure_map",
                                                                  api_visibility="private")
    for dropdown in (level, source):
        dropdown.input(**redraw_map, api_name=f"failure_map_on_{dropdown.label.lower()}", api_visibility="private")
    mode_map.select(fm.clicked, None, [family, mode], api_name="failure_map_cell", api_visibility="private").then(
        lambda: "1", None, page, api_name="failure_map_first_page", api_visibility="private").then(
        **refresh, api_name="failure_map_search", api_visibility="private")
    for box in (tag, since, until, text):
        box.submit(**refresh, api_name=f"search_on_{box.label.split()[0].lower()}", api_visibility="private")
    prev_page.click(lambda p: str(max(1, inputs.parse_page(p) - 1)), page, page, api_name="prev_page",
                    api_visibility="private").then(**refresh, api_name="prev_page_search", api_visibility="private")
    next_page.click(lambda p: str(inputs.parse_page(p) + 1), page, page, api_name="next_page",
                    api_visibility="private").then(**refresh, api_name="next_page_search", api_visibility="private")
    open_button.click(**reopen, api_name="open_failure")
    table.select(selected_id, None, open_id, api_name="select_failure", api_visibility="private").then(
        **reopen, api_name="open_selected", api_visibility="private")
    edits = (
        (add_tag, bind(change_tags, services), [ids, tags, open_id, password], "add_tags"),
        (remove_tag, bind(change_tags, services, remove=True), [ids, tags, open_id, password], "remove_tags"),
        (repaired_on, bind(mark_repaired, services), [ids, open_id, password], "mark_repaired"),
        (repaired_off, bind(mark_repaired, services, repaired=False), [ids, open_id, password], "mark_unrepaired"),
        (save, bind(save_notes, services), [open_id, notes, password], "save_notes"),
        (remove, bind(delete, services), [ids, open_id, confirm, password], "delete_failures"),
    )
    for button, fn, sources, name in edits:
        button.click(fn, sources, action, api_name=name).then(
            **refresh, api_name=f"{name}_refresh", api_visibility="private").then(
            **reopen, api_name=f"{name}_reopen", api_visibility="private")
    recheck_button.click(bind(recheck, services), [recheck_model, recheck_count, password], action,
                         api_name="recheck_failures", concurrency_limit=1).then(
        **refresh, api_name="recheck_refresh", api_visibility="private")
    jsonl.click(partial(export_jsonl, services), filters, [download, action], api_name="export_jsonl")
    dpo.click(partial(export_dpo, services), filters, [download, action], api_name="export_dpo")
    models = dict(fn=partial(refresh_models, services), inputs=None, outputs=recheck_model)
    return {"refresh": refresh, "map": redraw_map, "models": models}
