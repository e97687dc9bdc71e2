"""Challenger tab: the wordings a challenger wrote (accepted, with provenance and pass rates), the
rejected ones with their reasons, each co-evolution round's figures, the latest duel's failure
maps, running a duel between two models, and deleting a template (admin password when one is set
for the last two)."""
from __future__ import annotations

import random
from functools import partial

import gradio as gr

from alice_app.services import MAX_DUEL_BUDGET, MAX_DUEL_SAMPLES, duel_models
from alice_app.ui import inputs
from alice_app.ui.bank import model_choices, refresh_models
from alice_app.ui.guard import bind, refusal

ACCEPTED_COLUMNS = ["template_id", "level", "op", "pass_rate", "samples", "novelty", "proposer", "round", "template"]
REJECTED_COLUMNS = ["reason", "detail", "proposer", "round", "reply (start)"]
ROUND_COLUMNS = ["run", "round", "proposals", "valid", "novel", "in zone", "mean reward", "challenger tasks",
                 "solver pass rate", "note"]
DUEL_COLUMNS = ["solver", "source", "op", "pass_rate", "samples", "failure modes", "template"]


def accepted_rows(rows: list[dict]) -> list[list]:
    return [[r["template_id"], r["level"], r["op"], "-" if r["pass_rate"] is None else f"{r['pass_rate']:.2f}",
             r["n"], f"{r['novelty']:.2f}", r["proposer"], r["round"] if r["round"] is not None else "-",
             r["template"]] for r in rows]


def rejected_rows(rows: list[dict]) -> list[list]:
    return [[r["reason"], r["detail"], r["proposer"], r["round"] if r["round"] is not None else "-",
             " ".join(r["raw"].split())[:120]] for r in rows]


def round_rows(rounds: list[dict]) -> list[list]:
    rows = []
    for r in rounds:
        f, c = r["figures"], r["figures"]["challenger"]
        solver = f.get("solver_train_pass_rate")
        rows.append([r["run_id"], r["round"], c["proposals"], c["validity_rate"], c["novelty_rate"], c["zone_rate"],
                     c["mean_reward"], f["challenger_tasks"], "-" if solver is None else solver, f["solver_note"]])
    return rows


def duel_rows(duel: dict | None) -> tuple[str, list[list]]:
    if not duel:
        return "No duel yet: run one below (*Run a duel*) or with `python -m alice_app duel --a A --b B`.", []
    result, rows = duel["result"], []
    for name, side in result["sides"].items():
        for r in side["failure_map"]:
            modes = ", ".join(f"{m} {c}" for m, c in sorted(r["modes"].items())) or "-"
            rows.append([f"{name}: {side['model']}", r["source"], r["op"], f"{r['pass_rate']:.2f}", r["n"], modes,
                         r["template"]])
    found = "; ".join(f"{name} found {len(side['found_against_opponent'])} template(s) against the other"
                      for name, side in result["sides"].items())
    return f"Duel #{duel['id']}: A = {duel['model_a']}, B = {duel['model_b']} (k = {result['k']}). {found}.", rows


def rejection_summary(counts: dict[str, int]) -> str:
    if not counts:
        return "No rejected proposals yet."
    return "Rejected proposals by reason: " + ", ".join(f"**{reason}** {n}" for reason, n in counts.items())


def accepted_note(accepted: int, seeds: int) -> str:
    """What the ``challenger`` family plays: its built-in seed templates, plus any accepted wordings."""
    if not accepted:
        return (f"No accepted wordings yet: the `challenger` family (Episode tab, hunt, training feed) plays "
                f"its {seeds} built-in seed templates until a co-evolution run (`python -m alice_app coevolve`, "
                "or the Training tab's *challenger + solver* mode) accepts one.")
    one = accepted == 1
    return (f"{accepted} accepted wording{'' if one else 's'}: the `challenger` family plays "
            f"{'it' if one else 'them'} and its {seeds} built-in seed templates.")


def show_tab(services) -> tuple:
    """``show`` and, above the Accepted table, what the challenger family plays."""
    from alice_app.challenger.family import SEED_TEMPLATES

    return (*show(services), accepted_note(len(services.templates.wordings()), len(SEED_TEMPLATES)))


def show(services) -> tuple:
    store = services.templates
    summary, duel = duel_rows((store.duels(limit=1) or [None])[0])
    return (accepted_rows(store.accepted()), rejection_summary(store.rejection_counts()),
            rejected_rows(store.rejections(limit=100)), round_rows(store.rounds()), summary, duel)


def delete_template(services, template_id: str, password: str | None, request: gr.Request = None) -> str:
    problem = refusal(services, password, request)
    if problem:
        return problem
    template_id = (template_id or "").strip()
    if not template_id:
        return "⚠ Paste a template id from the table."
    if not services.templates.delete(template_id):
        return f"⚠ No stored template {template_id!r}."
    from alice_app.challenger.family import load_catalog

    load_catalog(services.templates)
    return f"Template {template_id} deleted; the hunt, the feed and repair no longer draw it."


def run_duel(services, model_a, model_b, budget, k, password, request: gr.Request = None,
             seed: int | None = None) -> str:
    """A duel of the two chosen models (``services.duel_models``): what each found against the other, and how to
    replay it from the command line; its failure maps land in the table above."""
    from alice_app.models.base import BackendError
    from alice_app.models.loader import ModelNotFoundError

    problem = refusal(services, password, request)
    if problem:
        return problem
    try:
        budget = inputs.parse_number("Proposals per side", budget, whole=True, low=1, high=MAX_DUEL_BUDGET)
        k = inputs.parse_number("Samples per task (k)", k, whole=True, low=1, high=MAX_DUEL_SAMPLES)
    except ValueError as exc:
        return f"⚠ {exc}"
    known = dict((path, label) for label, path in model_choices(services))
    if model_a not in known or model_b not in known:
        return "⚠ Choose both models from the lists (a run's adapter appears once the run completes)."
    seed = random.randrange(2**31) if seed is None else seed
    try:
        result = duel_models(services, model_a or None, model_b or None, budget=budget, k=k, seed=seed)
    except (ValueError, ModelNotFoundError, BackendError) as exc:
        return f"⚠ {exc}"
    found = "; ".join(f"{name} ({known[path]}) wrote {side['proposals']['proposals']} proposals, "
                      f"{len(side['valid'])} valid and novel{_rejections(side['proposals']['rejections'])}, and found "
                      f"{len(side['found_against_opponent'])} the other passes at most half the time"
                      for (name, side), path in zip(result["sides"].items(), (model_a, model_b)))
    notes = "".join(f" Note: {note}" for note in result["notes"])
    replay = " ".join(f"--{flag} {path or 'embedded'}" for flag, path in (("a", model_a), ("b", model_b)))
    return (f"Duel #{result['duel_id']} done: {found}.{notes} Replay it with `python -m alice_app duel {replay} "
            f"--budget {budget} --k {k} --seed {seed}`.")


def _rejections(counts: dict[str, int]) -> str:
    return " (rejected: " + ", ".join(f"{reason} {n}" for reason, n in counts.items()) + ")" if counts else ""


def build(services) -> dict:
    """Lay out the tab; returns the refresh event (run when the tab is opened)."""
    gr.Markdown("Wordings written by a challenger model (`python -m alice_app coevolve`), validated and "
                "measured by the engine. Tasks drawn from them form the `challenger` family.")
    note = gr.Markdown(elem_id="challenger-accepted-note")
    accepted = gr.Dataframe(headers=ACCEPTED_COLUMNS, interactive=False, label="Accepted templates",
                            elem_id="challenger-accepted")
    reasons = gr.Markdown(elem_id="challenger-reasons")
    rejected = gr.Dataframe(headers=REJECTED_COLUMNS, interactive=False, label="Rejected proposals (latest 100)")
    rounds = gr.Dataframe(headers=ROUND_COLUMNS, interactive=False, label="Co-evolution rounds")
    duel_summary = gr.Markdown(elem_id="challenger-duel")
    duel = gr.Dataframe(headers=DUEL_COLUMNS, interactive=False, label="Latest duel: failure maps")
    password = gr.Textbox(label="Admin password", type="password", visible=bool(services.settings.admin_password))
    with gr.Accordion("Run a duel", open=False):
        gr.Markdown(f"Each model writes task wordings against the other (up to {MAX_DUEL_BUDGET} proposals a side); "
                    "each then answers k samples of tasks filled from the built-in seed templates and from the "
                    "other's valid wordings. The two failure maps replace the table above. A few minutes on a CPU.")
        choices = model_choices(services)
        with gr.Row():
            model_a = gr.Dropdown(choices, value=choices[-1][1], label="Model A", elem_id="duel-model-a")
            model_b = gr.Dropdown(choices, value=choices[0][1], label="Model B", elem_id="duel-model-b")
        with gr.Row():
            budget = gr.Number(4, label="Proposals per side", precision=0, minimum=1, maximum=MAX_DUEL_BUDGET,
                               elem_id="duel-budget")
            k = gr.Number(4, label="Samples per task (k)", precision=0, minimum=1, maximum=MAX_DUEL_SAMPLES,
                          elem_id="duel-k")
            start_duel = gr.Button("Run duel", variant="primary", elem_id="duel-run")
    with gr.Row():
        template_id = gr.Textbox(label="Template id to delete")
        delete = gr.Button("Delete template", variant="stop")
    status = gr.Markdown(elem_id="challenger-status")
    refresh = dict(fn=partial(show_tab, services), inputs=None,
                   outputs=[accepted, reasons, rejected, rounds, duel_summary, duel, note])
    delete.click(bind(delete_template, services), [template_id, password], status,
                 api_name="delete_challenger_template").then(**refresh, api_name="challenger_refresh",
                                                             api_visibility="private")
    start_duel.click(bind(run_duel, services), [model_a, model_b, budget, k, password], status, api_name="run_duel",
                     concurrency_limit=1).then(**refresh, api_name="duel_refresh", api_visibility="private")
    models = [dict(fn=partial(refresh_models, services, pick), inputs=None, outputs=dropdown)
              for pick, dropdown in ((-1, model_a), (0, model_b))]
    return {"refresh": refresh, "models": models}
