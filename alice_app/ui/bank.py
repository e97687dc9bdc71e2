"""Failure bank tab: a server-side paginated table with filters, a detail view, tags, notes,
repair marks, exports and deletion (with confirmation and, when configured, the admin password)."""
from __future__ import annotations

import json
import shutil
import tempfile
import time
from functools import partial
from pathlib import Path

import gradio as gr

from alice_app.types import FAILURE_MODES, LEVELS
from alice_app.ui import formatting as fmt
from alice_app.ui import inputs
from alice_app.ui.episode import family_choices

PAGE_SIZES = [25, 50, 100]
REPAIRED_CHOICES = [inputs.ALL, "unrepaired", "repaired"]


def query_filters(family, level, mode, tag, repaired, since, until, search) -> dict:
    """The filter form as FailureBank.query keyword arguments; bad dates raise ValueError."""
    return {
        "family": inputs.filter_value(family), "level": inputs.filter_value(level), "mode": inputs.filter_value(mode),
        "tag": inputs.filter_value((tag or "").strip().lower()), "repaired": inputs.parse_repaired(repaired),
        "since": inputs.parse_date(since), "until": inputs.parse_date(until),
        "search": inputs.filter_value((search or "").strip()),
    }


def search(services, family, level, mode, tag, repaired, since, until, text, page, page_size):
    """One page of the table; the page number is clamped to the pages that exist."""
    try:
        filters = query_filters(family, level, mode, tag, repaired, since, until, text)
    except ValueError as exc:
        return gr.skip(), f"⚠ {exc}", gr.skip()
    size = int(page_size or 50)
    result = services.bank.query(**filters, page=max(1, int(page or 1)), page_size=size)
    last = fmt.page_count(result.total, size)
    if result.page > last:  # the filter shrank the result under the current page
        result = services.bank.query(**filters, page=last, page_size=size)
    return fmt.failure_rows(result.rows), fmt.format_page_info(result.total, result.page, size), result.page


def open_failure(services, failure_id):
    try:
        failure_id = inputs.optional_id(failure_id)
    except ValueError as exc:
        return f"⚠ {exc}", "", ""
    row = services.bank.get(failure_id) if failure_id else None
    if failure_id and row is None:
        return f"⚠ There is no failure #{failure_id}.", "", ""
    return fmt.format_failure_detail(row), (row or {}).get("notes") or "", ", ".join((row or {}).get("tags") or [])


def selected_id(evt: gr.SelectData):
    """Clicking any cell of a row opens that row (its id is the first column)."""
    row = evt.row_value or []
    return row[0] if row else gr.skip()


def change_tags(services, ids_text, tags_text, open_id, remove: bool = False):
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


def save_notes(services, open_id, notes):
    open_id = _safe_id(open_id)
    if not open_id or services.bank.get(open_id) is None:
        return "⚠ Open a failure first."
    try:
        services.bank.set_notes(open_id, notes or "")
    except ValueError as exc:  # e.g. notes over the size limit; nothing is lost from the box
        return f"⚠ {exc}"
    return f"Notes of failure #{open_id} saved."


def mark_repaired(services, ids_text, open_id, repaired: bool = True):
    try:
        ids = inputs.parse_ids(ids_text) or _open_ids(open_id)
    except ValueError as exc:
        return f"⚠ {exc}"
    if not ids:
        return "⚠ Give the failure ids (or open one)."
    services.bank.set_repaired(ids, repaired)
    return f"Marked {len(ids)} failure{'s' if len(ids) > 1 else ''} as {'repaired' if repaired else 'unrepaired'}."


def delete(services, ids_text, open_id, confirmed, password):
    try:
        inputs.check_admin(services.settings.admin_password, password)
        ids = inputs.parse_ids(ids_text) or _open_ids(open_id)
    except (PermissionError, ValueError) as exc:
        return f"⚠ {exc}"
    if not ids:
        return "⚠ Give the failure ids to delete (or open one)."
    if not confirmed:
        return f"⚠ Tick **I confirm** to delete {len(ids)} failure{'s' if len(ids) > 1 else ''}; this cannot be undone."
    return f"Deleted {services.bank.delete(ids)} failure(s)."


EXPORTS_KEPT_SECONDS = 24 * 3600


def export_path(filename: str) -> Path:
    """A fresh file for one download, in a private folder under the temp dir's ``alice-exports``;
    exports older than a day are removed on the way, so downloads do not pile up in /tmp."""
    root = Path(tempfile.gettempdir()) / "alice-exports"
    root.mkdir(exist_ok=True)
    cutoff = time.time() - EXPORTS_KEPT_SECONDS
    for old in root.iterdir():
        try:
            if old.stat().st_mtime < cutoff:
                shutil.rmtree(old, ignore_errors=True)
        except OSError:
            continue  # another session removed it first
    return Path(tempfile.mkdtemp(dir=root)) / filename


def export_jsonl(services, family, level, mode, tag, repaired, since, until, text):
    try:
        filters = query_filters(family, level, mode, tag, repaired, since, until, text)
    except ValueError as exc:
        return None, f"⚠ {exc}"
    path = export_path("failures.jsonl")
    count = 0
    with path.open("w", encoding="utf-8") as out:
        for row in services.bank.iter_rows(**filters):
            out.write(json.dumps(row, default=str) + "\n")
            count += 1
    return str(path), f"Exported {count:,} failures as JSONL."


def export_dpo(services):
    exporter = dpo_exporter()
    if exporter is None:
        return None, "DPO export is not available in this build (alice_app.training.dpo is missing)."
    path = export_path("dpo_pairs.jsonl")
    try:  # chosen = the task's exact answer in the answer format, checked by the verifier
        count = exporter(services.bank, services.verifier, path)
    except Exception as exc:  # report the exporter's own message instead of a blank failure
        return None, f"⚠ DPO export failed: {exc}"
    return str(path), (f"Exported {count:,} DPO pairs (prompt, chosen, rejected) as JSONL; "
                       "load with datasets.load_dataset('json', data_files=...).")


def dpo_exporter():
    """The training package's DPO exporter when it exists, else None (the tab says so)."""
    try:
        from alice_app.training.dpo import export_dpo_dataset
    except ImportError:
        return None
    return export_dpo_dataset


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
        mode = gr.Dropdown([inputs.ALL, *FAILURE_MODES], value=inputs.ALL, label="Failure mode")
        repaired = gr.Dropdown(REPAIRED_CHOICES, value=inputs.ALL, label="Repaired")
    with gr.Row():
        tag = gr.Textbox(label="Tag", placeholder="e.g. review")
        since = gr.Textbox(label="Since (YYYY-MM-DD)")
        until = gr.Textbox(label="Until (YYYY-MM-DD)")
        text = gr.Textbox(label="Search (prompt, response, notes)", scale=2)
    with gr.Row():
        run_search = gr.Button("Search", variant="primary")
        prev_page, next_page = gr.Button("◀ Previous"), gr.Button("Next ▶")
        page = gr.Number(1, label="Page", precision=0, minimum=1)
        page_size = gr.Dropdown(PAGE_SIZES, value=50, label="Rows per page")
    page_info = gr.Markdown(elem_id="bank-page-info")
    table = gr.Dataframe(headers=fmt.FAILURE_COLUMNS, interactive=False, wrap=True, label="Failures (click a row)")
    with gr.Row():
        with gr.Column(scale=3):
            with gr.Row():
                open_id = gr.Textbox(label="Failure id", placeholder="e.g. 12")
                open_button = gr.Button("Open")
            detail = gr.Markdown(fmt.format_failure_detail(None), elem_id="bank-detail")
        with gr.Column(scale=2):
            ids = gr.Textbox(label="Ids to act on (e.g. 3, 7, 10-12; blank = the open failure)")
            tags = gr.Textbox(label="Tags (comma-separated)", elem_id="bank-tags")
            with gr.Row():
                add_tag, remove_tag = gr.Button("Add tags"), gr.Button("Remove tags")
            with gr.Row():
                repaired_on, repaired_off = gr.Button("Mark repaired"), gr.Button("Mark unrepaired")
            action = gr.Markdown(elem_id="bank-status")
            notes = gr.Textbox(label="Notes", lines=3)
            save = gr.Button("Save notes")
            with gr.Accordion("Export", open=False):
                with gr.Row():
                    jsonl, dpo = gr.Button("Export JSONL (current filter)"), gr.Button("Export DPO pairs")
                download = gr.File(label="Download", interactive=False)
            with gr.Accordion("Delete", open=False):
                confirm = gr.Checkbox(label="I confirm: delete these failures for good")
                password = gr.Textbox(label="Admin password", type="password",
                                      visible=bool(services.settings.admin_password))
                remove = gr.Button("Delete", variant="stop")

    filters = [family, level, mode, tag, repaired, since, until, text]
    do_search = partial(search, services)
    refresh = dict(fn=do_search, inputs=[*filters, page, page_size], outputs=[table, page_info, page])
    reopen = dict(fn=partial(open_failure, services), inputs=[open_id], outputs=[detail, notes, tags])
    run_search.click(**refresh, api_name="search_failures")
    for box in (tag, since, until, text):
        box.submit(**refresh, api_name=f"search_on_{box.label.split()[0].lower()}", api_visibility="private")
    prev_page.click(lambda p: max(1, int(p or 1) - 1), page, page, api_name="prev_page", api_visibility="private").then(
        **refresh, api_name="prev_page_search", api_visibility="private")
    next_page.click(lambda p: int(p or 1) + 1, page, page, api_name="next_page", api_visibility="private").then(
        **refresh, api_name="next_page_search", api_visibility="private")
    open_button.click(**reopen, api_name="open_failure")
    table.select(selected_id, None, open_id, api_name="select_failure", api_visibility="private").then(
        **reopen, api_name="open_selected", api_visibility="private")
    edits = (
        (add_tag, partial(change_tags, services), [ids, tags, open_id], "add_tags"),
        (remove_tag, partial(change_tags, services, remove=True), [ids, tags, open_id], "remove_tags"),
        (repaired_on, partial(mark_repaired, services), [ids, open_id], "mark_repaired"),
        (repaired_off, partial(mark_repaired, services, repaired=False), [ids, open_id], "mark_unrepaired"),
        (save, partial(save_notes, services), [open_id, notes], "save_notes"),
        (remove, partial(delete, services), [ids, open_id, confirm, password], "delete_failures"),
    )
    for button, fn, sources, name in edits:
        button.click(fn, sources, action, api_name=name).then(
            **refresh, api_name=f"{name}_refresh", api_visibility="private").then(
            **reopen, api_name=f"{name}_reopen", api_visibility="private")
    jsonl.click(partial(export_jsonl, services), filters, [download, action], api_name="export_jsonl")
    dpo.click(partial(export_dpo, services), None, [download, action], api_name="export_dpo")
    return refresh
