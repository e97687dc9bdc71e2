"""Training tab: configure and start a run (GRPO / episode / DPO) on the configured or another
model, stop it, resume it; watch it through every phase with a measured ETA and a live chart
(``gr.Timer`` polls the database), then read the before/after heatmap and download the adapter.
Starting, stopping and resuming need the admin password when one is configured."""
from __future__ import annotations

import shutil
from functools import partial

import gradio as gr

from alice_app import services as svc
from alice_app.ui import charts, inputs, progress
from alice_app.ui import formatting as fmt
from alice_app.ui.episode import family_choices
from alice_app.ui.exports import export_path
from alice_app.ui.guard import bind, refusal

MODES = ("grpo", "episode", "dpo", "coevolve")
# Radio labels: "coevolve" alone would read like the prompt feed of the same name.
MODE_LABELS = {"coevolve": "challenger + solver (coevolve)"}
POLL_SECONDS = 2.0
STEPS_LABEL = "Steps"
SETTINGS_PER_ROW = 4


def form_value(name: str, default, choices, value):
    """A box of the settings form as the type of TrainConfig's default (ValueError names the box);
    ranges are TrainConfig.validate's to check, so the form and the CLI refuse the same values."""
    if isinstance(default, bool):
        return bool(value)
    if choices or isinstance(default, str):
        return str(value if value is not None else "")
    number = inputs.parse_number(name, value, whole=isinstance(default, int))
    return number if isinstance(default, int) else float(number)


def config_from_form(settings, mode, feed, model, steps, families, *setting_values):
    """A validated TrainConfig from the form; every bad box is named in the message (ValueError)."""
    values = {"mode": mode, "feed": feed, "model": checked_model(settings, model),
              "steps": inputs.parse_number(STEPS_LABEL, steps, whole=True, low=1),
              "families": (families,) if isinstance(families, str) else tuple(families or ())}
    for (name, _, default, choices), value in zip(svc.training_form_fields(), setting_values):
        values[name] = form_value(name, default, choices, value)
    return svc.training_config(values)


def checked_model(settings, model) -> str:
    """``check_training_model``, with a name no folder can have (a path part over 255 bytes) as a
    ValueError naming the box, not Gradio's bare "Error" echoing the whole name back."""
    try:
        return svc.check_training_model(settings, model)
    except OSError as exc:
        raise ValueError(f"Model to train: {inputs.shown(model)} cannot be a local folder ({exc.strerror}); "
                         "give a Hugging Face id or a local folder.") from None


def coevolve_from_form(values) -> object:
    """A validated CoevolveConfig from the co-evolution boxes (every bad box named). A count whose default is 0
    (the challenger's warm start: none) may be 0; the others start at 1."""
    parsed = {name: int(inputs.parse_number(_label(name), value, whole=True, low=0 if default == 0 else 1,
                                            high=100_000))
              for (name, _, default), value in zip(svc.coevolve_form_fields(), values)}
    return svc.coevolve_config(parsed)


def _label(name: str) -> str:
    return name.replace("_", " ").capitalize()


def _split(boxes) -> tuple[tuple, tuple]:
    """The form's boxes after mode, feed and model: steps, families and TrainConfig's settings, then the
    co-evolution ones."""
    count = 2 + len(svc.training_form_fields())
    return tuple(boxes[:count]), tuple(boxes[count:])


def box_value(default, value):
    """``value`` as a settings box shows it (the inverse of ``form_value``)."""
    if isinstance(default, bool) or isinstance(default, str):
        return value
    return f"{value:g}" if isinstance(default, float) else str(value)


def apply_recipe(name):
    """The form's values (mode, feed, steps, families, every settings box) from recipe ``name``, and a
    line saying what was loaded; an empty choice changes nothing."""
    count = 4 + len(svc.training_form_fields())
    if not name:
        return [gr.skip()] * count + [""]
    try:
        values = svc.training_recipe(name)
    except ValueError as exc:
        return [gr.skip()] * count + [f"⚠ {exc}"]
    boxes = [box_value(default, values[field]) for field, _, default, _ in svc.training_form_fields()]
    left_out = {key: values[key] for key in ("report_to", "lora_targets", "use_vllm", "vllm_mode")
                if values[key] != svc.training_defaults()[key]}
    note = (" Not in this form (set them with the CLI): " + ", ".join(f"{k} = {v}" for k, v in left_out.items())
            + ".") if left_out else ""
    return [values["mode"], values["feed"], str(values["steps"]), list(values["families"]), *boxes,
            f"Loaded recipe **{name}** (`examples/recipes/{name}.yaml`) into the form; press Start to run it.{note}"]


def _setting_box(name: str, help: str, default, choices):
    if isinstance(default, bool):
        return gr.Checkbox(default, label=name, info=help)
    if choices:
        return gr.Dropdown(list(choices), value=default, label=name, info=help)
    return gr.Textbox(box_value(default, default), label=name, info=help)


def _setting_boxes() -> list:
    """One box per TrainConfig setting of the form, named as its CLI flag, its help underneath."""
    fields, boxes = svc.training_form_fields(), []
    for first in range(0, len(fields), SETTINGS_PER_ROW):
        with gr.Row():
            boxes += [_setting_box(*field) for field in fields[first:first + SETTINGS_PER_ROW]]
    return boxes


def expected_time(services, mode, feed, model, *numbers) -> str:
    """The warning above Start: the run's expected time on this machine, or what is wrong with the form."""
    numbers, coevolve_values = _split(numbers)
    if mode == "coevolve":
        try:
            co = coevolve_from_form(coevolve_values)
        except (ValueError, TypeError) as exc:
            return f"⚠ {exc}"
        return (f"Co-evolution on the configured model: {co.rounds} round(s) of {co.challenger_steps} challenger "
                f"and {co.solver_steps} solver GRPO steps (k = {co.k} solver samples per filled task). Feed, model "
                "and the hyper-parameters above do not apply; each round's figures appear below and in the "
                "Challenger tab. A 1-round run of 2 + 2 steps takes a few minutes on a CPU.")
    try:
        config = config_from_form(services.settings, mode, feed, model, *numbers)
    except ValueError as exc:
        return f"⚠ {exc}"
    step_s, setup_s, source = progress.measured_rates(services.runs.list(limit=20), services.runs.metrics,
                                                      config.batch_size, config.mode, _completions_of)
    eval_n = config.eval_n_per_cell
    return progress.format_expected(config.steps, eval_n, svc.training_cells(config), step_s, setup_s, source,
                                    warm_start_steps=progress.warm_start_step_equivalents(
                                        config.warm_start_prompts, config.warm_start_source, config.prompts_per_step,
                                        config.warm_start_repair_count),
                                    probe_steps=progress.probe_step_equivalents(
                                        config.feed_probe, svc.probe_cells(config), config.prompts_per_step),
                                    redraws=config.redraw_uniform)


def _completions_of(run) -> int:
    """Completions a step of a recorded run (its settings over TrainConfig's defaults)."""
    settings = {**svc.training_defaults(), **(run.get("config") or {})}
    return max(1, int(settings["num_generations"]) * int(settings["prompts_per_step"]))


def start(services, password, mode, feed, model, *numbers, request: gr.Request = None):
    problem = refusal(services, password, request)
    if problem:
        return problem
    numbers, coevolve_values = _split(numbers)
    try:
        if mode == "coevolve":
            run_id = services.training.start_coevolve(coevolve_from_form(coevolve_values))
        else:
            run_id = services.training.start(config_from_form(services.settings, mode, feed, model, *numbers))
    except (ValueError, TypeError, RuntimeError) as exc:
        return f"⚠ {exc}"
    return f"Run #{run_id} started. The progress below updates every {POLL_SECONDS:.0f} s."


def stop(services, password, request: gr.Request = None):
    problem = refusal(services, password, request)
    if problem:
        return problem
    if services.runs.active() is None or not services.training.stop():
        return "No run is active in this app."
    return "Stop requested: the run stops after the current step (a stopped run has no after-evaluation)."


def resume(services, password, run_id, request: gr.Request = None):
    problem = refusal(services, password, request)
    if problem:
        return problem
    try:
        target = inputs.optional_id(run_id) or _latest_id(services)
        if target is None:
            raise ValueError("There is no run to resume yet.")
        services.training.resume(target)
    except (ValueError, RuntimeError) as exc:
        return f"⚠ {exc}"
    return f"Run #{target} resumed."


def poll(services, run_id):
    """The timer's poll: progress, the live chart, the run list, the heatmap, its summary, the adapter."""
    runs = services.runs.list(limit=50)
    run = _pick_run(services, runs, run_id)
    metrics = services.runs.metrics(run["id"]) if run else []
    evals = services.runs.evals(run["id"]) if run else {}
    phase = services.training.status().get("phase") if run and run["status"] in progress.ACTIVE else None
    return (progress.format_live(run, metrics, phase), charts.live_training_figure(metrics), fmt.run_rows(runs),
            charts.before_after_heatmap(evals), progress.format_eval_summary(run, evals), format_adapter(run))


def format_adapter(run) -> str:
    """Where the run's LoRA adapter is: the final one once completed, else its latest checkpoint."""
    path = (run or {}).get("checkpoint")
    if not path:
        return "_The trained adapter appears here once the run saves a checkpoint or completes._"
    what = "Adapter" if run.get("status") == "completed" else "Latest checkpoint (a LoRA adapter)"
    return (f"{what} of run #{run['id']}: `{path}`. Evaluate it with "
            f"`python -m alice_app eval --adapter {path}`, or download it below.")


def download_adapter(services, run_id):
    """The shown run's adapter folder as a .zip file."""
    run = _pick_run(services, services.runs.list(limit=50), run_id)
    path = (run or {}).get("checkpoint")
    if not path:
        return None, "⚠ This run has no adapter yet (it is saved when a run completes)."
    try:
        archive = shutil.make_archive(str(export_path(f"adapter-run-{run['id']}")), "zip", path)
    except OSError as exc:
        return None, f"⚠ The adapter folder {path} could not be read: {exc}"
    return archive, f"Adapter of run #{run['id']} packed as a .zip."


def play_adapter(services, run_id, password, request: gr.Request = None, base: bool = False):
    """Let the shown completed run's adapter (or, with ``base``, the configured model again) answer in the Episode
    tab and the Failure bank's recheck, for every visitor."""
    from alice_app.models.base import BackendError
    from alice_app.models.loader import ModelNotFoundError

    problem = refusal(services, password, request)
    if problem:
        return problem
    run = None if base else _pick_run(services, services.runs.list(limit=50), run_id)
    if not base and (not run or run["status"] != "completed" or not run.get("checkpoint")):
        return "⚠ Only a completed run has a final adapter to play; pick one in *Run id* (blank = the newest)."
    try:
        model_id = svc.play_with_adapter(services, None if base else run["checkpoint"])
    except (ValueError, OSError, ModelNotFoundError, BackendError) as exc:
        return f"⚠ {exc}"
    if base:
        return f"The Episode tab's model answers are {model_id}'s again."
    return (f"Run #{run['id']}'s adapter (`{model_id}`) now answers in the Episode tab (*Let the model answer*, "
            "auto-play) and the Failure bank's recheck, for every visitor; *Base model* switches back.")


def _pick_run(services, runs, run_id):
    try:
        chosen = inputs.optional_id(run_id)
    except ValueError:  # a half-typed id must not break the live poll; show the default run
        chosen = None
    if chosen:
        return services.runs.get(chosen)
    return services.runs.active() or (runs[0] if runs else None)


def _latest_id(services):
    runs = services.runs.list(limit=1)
    return runs[0]["id"] if runs else None


def build(services) -> dict:
    """Lay out the tab; returns the poll (run on load, on the timer and when the tab is opened)."""
    defaults = svc.training_defaults()
    with gr.Row():
        mode = gr.Radio([(MODE_LABELS.get(m, m), m) for m in MODES], value=defaults["mode"], label="Mode")
        feed = gr.Radio(["coevolve", "static"], value=defaults["feed"], label="Prompt feed")
        model = gr.Textbox(services.settings.model_name, label="Model to train",
                           info="A Hugging Face id or a local folder; checked before Start.")
        steps = gr.Textbox(str(defaults["steps"]), label=STEPS_LABEL)
    with gr.Row():
        families = gr.Dropdown(family_choices(), value=list(defaults["families"]), multiselect=True, label="Families",
                               info="Families to train and evaluate on; empty = the core families plus "
                                    "plain_arithmetic.", elem_id="training-families", scale=3)
        recipe = gr.Dropdown([("—", "")] + [(f"{name}: {text}", name) for name, text in svc.training_recipes()],
                             value="", label="Load a recipe",
                             info="Fills the form from examples/recipes/*.yaml (the CLI's --config files).",
                             elem_id="training-recipe", scale=2)
    with gr.Accordion("Advanced: hyper-parameters", open=False):
        gr.Markdown("Every other training setting, named as in `python -m alice_app train --help` and a YAML "
                    "recipe; ranges are checked before Start.")
        advanced = _setting_boxes()
    with gr.Accordion("Co-evolution (mode coevolve): a challenger writes wordings, the solver trains on them",
                      open=False):
        with gr.Row():
            coevolve_boxes = [gr.Textbox(str(default), label=_label(name), info=help, elem_id=f"coevolve-{name}")
                              for name, help, default in svc.coevolve_form_fields()]
    expected = gr.Markdown(elem_id="training-expected")
    with gr.Row():
        password = gr.Textbox(label="Admin password", type="password", visible=services.admin.required)
        run_id = gr.Textbox(label="Run id (blank = active or newest)", placeholder="e.g. 3")
        start_button = gr.Button("Start", variant="primary")
        stop_button = gr.Button("Stop", variant="stop")
        resume_button = gr.Button("Resume")
    status = gr.Markdown(elem_id="training-status")
    live = gr.Markdown(progress.format_live(None, [], None), elem_id="training-progress")
    chart = gr.Plot(show_label=False, elem_classes=["alice-chart"], elem_id="training-live-chart")
    with gr.Row():
        with gr.Column(scale=3):
            heatmap = gr.Plot(show_label=False, elem_classes=["alice-chart"], elem_id="training-heatmap")
            summary = gr.Markdown(elem_id="training-eval-summary")
        with gr.Column(scale=2):
            adapter = gr.Markdown(elem_id="training-adapter")
            with gr.Row():
                pack = gr.Button("Download adapter (.zip)")
                play = gr.Button("Play it in the Episode tab", elem_id="training-play-adapter")
                base = gr.Button("Base model", elem_id="training-base-model")
            download = gr.File(label="Adapter", interactive=False, height=90)
    runs = gr.Dataframe(headers=fmt.RUN_COLUMNS, interactive=False, label="Runs")
    timer = gr.Timer(POLL_SECONDS)

    form = [mode, feed, model, steps, families, *advanced, *coevolve_boxes]
    refresh = dict(fn=partial(poll, services), inputs=[run_id], outputs=[live, chart, runs, heatmap, summary, adapter])
    estimate = dict(fn=partial(expected_time, services), inputs=form, outputs=expected)
    timer.tick(**refresh, api_name="training_progress", show_progress="hidden")
    gr.on([box.change for box in form], **estimate, api_name="expected_time", show_progress="hidden")
    for button, fn, sources, name in ((start_button, bind(start, services), [password, *form], "start_training"),
                                      (stop_button, bind(stop, services), [password], "stop_training"),
                                      (resume_button, bind(resume, services), [password, run_id], "resume_training")):
        button.click(fn, sources, status, api_name=name).then(**refresh, api_name=f"{name}_progress",
                                                              api_visibility="private")
    recipe.change(apply_recipe, [recipe], [mode, feed, steps, families, *advanced, status], api_name="load_recipe")
    pack.click(partial(download_adapter, services), [run_id], [download, status], api_name="download_adapter")
    play.click(bind(play_adapter, services), [run_id, password], status, api_name="play_adapter", concurrency_limit=1)
    base.click(bind(play_adapter, services, base=True), [run_id, password], status, api_name="play_base_model",
               concurrency_limit=1)
    return {"refresh": refresh, "estimate": estimate}
