"""Training tab: configure and start a run (GRPO / episode / DPO), stop it, resume it; live progress
polled from the database with ``gr.Timer``; the run list with before/after evaluation."""
from __future__ import annotations

import dataclasses
from functools import partial

import gradio as gr

from alice_app.ui import formatting as fmt
from alice_app.ui import inputs

MODES = ("grpo", "episode", "dpo")
POLL_SECONDS = 2.0
# Form field → TrainConfig field. Only fields TrainConfig really has are passed on.
FORM_FIELDS = ("mode", "feed", "model_name", "steps", "learning_rate", "num_generations", "beta", "temperature",
               "max_completion_length", "lora_rank", "eval_n_per_cell")


def training_available() -> str | None:
    """None when the training package is importable, else the reason (shown in the tab)."""
    try:
        from alice_app.training.config import TrainConfig  # noqa: F401
        from alice_app.training.job import TrainingJob  # noqa: F401
    except ImportError as exc:
        return f"Training is not available in this build ({exc})."
    return None


def form_defaults() -> dict:
    """TrainConfig's own defaults for the form (fallbacks when training is not installed)."""
    try:
        from alice_app.training.config import TrainConfig
    except ImportError:
        return {"mode": "grpo", "feed": "coevolve", "steps": 20, "learning_rate": 1e-4, "num_generations": 4,
                "beta": 0.0, "temperature": 1.0, "max_completion_length": 48, "lora_rank": 16,
                "eval_n_per_cell": 8}
    return dataclasses.asdict(TrainConfig())


def config_takes_model() -> bool:
    """Whether a run can name its own model; otherwise it trains the configured MODEL_NAME."""
    try:
        from alice_app.training.config import TrainConfig
    except ImportError:
        return False
    return "model_name" in {f.name for f in dataclasses.fields(TrainConfig)}


def config_from_form(values: dict):
    """A validated TrainConfig from the form; blank fields keep TrainConfig's defaults."""
    from alice_app.training.config import TrainConfig

    known = {f.name for f in dataclasses.fields(TrainConfig)}
    chosen = {k: v for k, v in values.items() if k in known and v not in (None, "")}
    for name in ("steps", "num_generations", "max_completion_length", "lora_rank", "eval_n_per_cell"):
        if name in chosen:
            chosen[name] = int(chosen[name])
    config = TrainConfig(**chosen)
    if hasattr(config, "validate"):
        config.validate()
    return config


def start(services, password, *form):
    problem = training_available()
    if problem:
        return problem
    try:
        inputs.check_admin(services.settings.admin_password, password)
        config = config_from_form(dict(zip(FORM_FIELDS, form)))
        run_id = services.training.start(config)
    except (PermissionError, ValueError, RuntimeError) as exc:
        return f"⚠ {exc}"
    return f"Run #{run_id} started. Progress appears below every {POLL_SECONDS:.0f} s."


def stop(services, password):
    try:
        inputs.check_admin(services.settings.admin_password, password)
    except PermissionError as exc:
        return f"⚠ {exc}"
    if services.runs.active() is None or training_available() or not services.training.stop():
        return "No run is active in this app."
    return "Stop requested: the run stops after the current step."


def resume(services, password, run_id):
    problem = training_available()
    if problem:
        return problem
    try:
        inputs.check_admin(services.settings.admin_password, password)
        target = inputs.optional_id(run_id) or _latest_id(services)
        if target is None:
            raise ValueError("There is no run to resume yet.")
        resumed = services.training.resume(target)
    except (PermissionError, ValueError, RuntimeError) as exc:
        return f"⚠ {exc}"
    return f"Run #{resumed if resumed is not None else target} resumed from its last checkpoint."


def elapsed_seconds(metrics) -> float | None:
    """Training time so far, from the per-step durations the metrics callback logs."""
    times = [fmt.flatten_metrics(m).get("step_time") for m in metrics]
    times = [t for t in times if isinstance(t, (int, float))]
    return sum(times) if times else None


def progress(services, run_id):
    """The poll: the chosen run (else the active one, else the newest), the run list and its evals."""
    runs = services.runs.list(limit=50)
    run = _pick_run(services, runs, run_id)
    metrics = services.runs.metrics(run["id"]) if run else []
    evals = services.runs.evals(run["id"]) if run else {}
    live = fmt.format_progress(run, metrics, elapsed_seconds(metrics))
    phase = _phase(services) if run and run["status"] in ("queued", "running", "stopping") else None
    if phase:
        live += f"\n\nNow: {phase}"
    if run and not evals:
        live += "\n\n_No held-out evaluation stored for this run (it runs before and after training unless " \
                "the held-out tasks per cell are 0)._"
    return live, fmt.run_rows(runs), fmt.eval_rows(evals)


def _phase(services) -> str | None:
    """What the job is doing now (loading, evaluating, training), when this process runs it."""
    if training_available():
        return None
    return services.training.status().get("phase")


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
    """Lay out the tab; returns the progress event (run on load, on the timer and on tab open)."""
    missing = training_available()
    if missing:
        gr.Markdown(f"⚠ {missing} Starting runs is disabled; the run list below still reads the database.")
    defaults = form_defaults()
    with gr.Row():
        mode = gr.Radio(list(MODES), value=defaults["mode"], label="Mode")
        feed = gr.Radio(["coevolve", "static"], value=defaults.get("feed", "coevolve"), label="Prompt feed")
        model = gr.Textbox(services.settings.model_name, label="Model", interactive=config_takes_model(),
                           info=None if config_takes_model() else "The configured model (set MODEL_NAME to change it).")
        steps = gr.Number(defaults["steps"], label="Steps", precision=0, minimum=1)
    with gr.Row():
        learning_rate = gr.Number(defaults["learning_rate"], label="Learning rate")
        generations = gr.Number(defaults["num_generations"], label="Completions per prompt (GRPO group)", precision=0)
        beta = gr.Number(defaults["beta"], label="KL beta")
        temperature = gr.Number(defaults["temperature"], label="Sampling temperature")
        max_len = gr.Number(defaults["max_completion_length"], label="Max completion tokens", precision=0)
        lora_rank = gr.Number(defaults["lora_rank"], label="LoRA rank", precision=0)
        eval_n = gr.Number(defaults["eval_n_per_cell"], label="Held-out tasks per family × level (0 = no eval)",
                           precision=0, minimum=0)
    with gr.Row():
        password = gr.Textbox(label="Admin password", type="password", visible=bool(services.settings.admin_password))
        run_id = gr.Textbox(label="Run id (blank = active or newest)", placeholder="e.g. 3")
        start_button = gr.Button("Start", variant="primary", interactive=missing is None)
        stop_button = gr.Button("Stop", variant="stop")
        resume_button = gr.Button("Resume", interactive=missing is None)
    status = gr.Markdown(elem_id="training-status")
    live = gr.Markdown(fmt.format_progress(None, [], None), elem_id="training-progress")
    runs = gr.Dataframe(headers=fmt.RUN_COLUMNS, interactive=False, label="Runs")
    evals = gr.Dataframe(headers=["family", "level", "before", "after", "change (points)"], interactive=False,
                         label="Held-out evaluation of the shown run")
    timer = gr.Timer(POLL_SECONDS)

    form = [mode, feed, model, steps, learning_rate, generations, beta, temperature, max_len, lora_rank, eval_n]
    poll = dict(fn=partial(progress, services), inputs=[run_id], outputs=[live, runs, evals])
    timer.tick(**poll, api_name="training_progress", show_progress="hidden")
    start_button.click(partial(start, services), [password, *form], status, api_name="start_training").then(
        **poll, api_name="start_training_progress", api_visibility="private")
    stop_button.click(partial(stop, services), [password], status, api_name="stop_training").then(
        **poll, api_name="stop_training_progress", api_visibility="private")
    resume_button.click(partial(resume, services), [password, run_id], status, api_name="resume_training").then(
        **poll, api_name="resume_training_progress", api_visibility="private")
    return poll
