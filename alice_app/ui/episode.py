"""Episode tab: play one 5-turn episode by hand or let the policy answer.

Each browser session keeps its own ``EpisodeSession`` in ``gr.State`` (an environment of its own,
from ``services.new_environment()``), so two users never see each other's episode.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

import gradio as gr

from alice_app.types import LEVELS, Task, Verdict
from alice_app.ui import formatting as fmt
from alice_app.ui import inputs

CHOSEN = "family and level chosen above"
SOURCES = (CHOSEN, "next from curriculum: hunt", "next from curriculum: repair")
MODEL_MAX_TOKENS = 96
# What every handler returns, in order (the outputs of each event).
OUTPUT_NAMES = ("session", "task", "verdict", "reward", "guidance", "history", "status", "state")


@dataclass
class EpisodeSession:
    """One browser session's environment and the last observation it returned."""

    env: Any
    observation: Any = None


def family_choices() -> list[str]:
    import alice_app.tasks  # noqa: F401  (importing the package registers the built-in families)
    from alice_app.tasks.registry import family_names

    return family_names()


def default_family(families: list[str]) -> str | None:
    """The flagship family when it is registered, else the first one."""
    return "negation_arithmetic" if "negation_arithmetic" in families else (families[0] if families else None)


def reset_options(family: str | None, level: str | None, seed: Any, source: str) -> dict[str, Any]:
    """Map the form onto ``env.reset`` keyword arguments (pure, unit-tested)."""
    seed = inputs.parse_seed(seed)
    if source == CHOSEN:
        if not family or level not in LEVELS:
            raise ValueError("Pick a family and a level, or choose 'next from curriculum'.")
        return {"seed": seed, "family": family, "level": level, "mode": "hunt"}
    mode = source.rsplit(" ", 1)[-1]
    return {"seed": seed, "mode": mode}


def outputs(session: EpisodeSession | None, status: str = "") -> tuple:
    """Everything the tab shows, in the order of ``build``'s output components."""
    obs = session.observation if session else None
    state = session.env.state if session and obs is not None else {}
    history = list(state.get("history") or [])
    last = history[-1] if history else {}
    done = obs is not None and obs.done
    guidance = fmt.format_answer_key(state["task"]["answer"], obs.hint) if done else fmt.format_guidance(obs)
    return (
        session, fmt.format_task(obs), fmt.format_verdict(last.get("verdict")),
        fmt.format_reward(last.get("reward")), guidance,
        fmt.history_rows(history), status, state,
    )


def new_episode(services, session, family, level, seed, source):
    try:
        options = reset_options(family, level, seed, source)
        session = session or EpisodeSession(env=services.new_environment())
        session.observation = session.env.reset(**options)
    except (ValueError, LookupError) as exc:
        return outputs(session, f"⚠ {exc}")
    return outputs(session, "New episode: type an answer or let the model answer.")


def answer(services, session, text):
    problem = _cannot_answer(session)
    if problem:
        return outputs(session, problem)
    if not str(text or "").strip():
        return outputs(session, "⚠ Type an answer first (e.g. 'Answer: 7').")
    try:
        session.observation = session.env.step(str(text))
    except ValueError as exc:  # e.g. an answer over the size limit; the episode is unchanged
        return outputs(session, f"⚠ {exc}")
    return outputs(session, _status_after_turn(session))


def model_answer(services, session):
    """Generator: stream the model's answer into the status line, then show its judged answer.

    Backends with a ``stream`` method (the local transformers policy) show the text as it is
    decoded; the others (an HTTP endpoint) return the whole answer at once, and the status says so.
    """
    problem = _cannot_answer(session)
    if problem:
        yield outputs(session, problem)
        return
    yield outputs(session, "The model is answering (the first call also loads the model)…")
    messages = list(session.observation.messages)
    text = ""
    try:
        for text in _answer_pieces(services.policy, messages):
            yield outputs(session, f"The model is answering: {fmt.shorten(text, 400)}▌")
    except Exception as exc:  # a missing or broken model must not lose the episode
        yield outputs(session, f"⚠ The model could not answer: {exc}")
        return
    session.observation = session.env.step(text)
    yield outputs(session, f"Model answered: {fmt.shorten(text, 200)}\n\n{_status_after_turn(session)}")


def _answer_pieces(policy, messages):
    """The answer so far, piece by piece where the backend streams, else once when complete."""
    if hasattr(policy, "stream"):
        yield from policy.stream(messages, max_tokens=MODEL_MAX_TOKENS)
    else:
        yield policy.generate([messages], n=1, temperature=0.0, max_tokens=MODEL_MAX_TOKENS)[0][0]


def bank_episode(services, session):
    """Manually bank the last judged answer of this episode (the environment banks failed endings itself)."""
    history = (session.env.state.get("history") or []) if session and session.observation is not None else []
    if not history:
        return outputs(session, "⚠ Nothing to bank yet: answer at least once.")
    last = history[-1]
    verdict = Verdict.from_dict(last["verdict"])
    if verdict.is_correct:
        return outputs(session, "The last answer was judged correct; there is no failure to bank.")
    failure_id = services.bank.record(Task.from_dict(session.env.state["task"]), last["response"], verdict, source="manual")
    return outputs(session, f"Added to the failure bank as failure #{failure_id}.")


def clear_box() -> str:
    return ""


def _cannot_answer(session) -> str | None:
    if session is None or session.observation is None:
        return "⚠ Start an episode first (press **New episode**)."
    if session.observation.done:
        return "This episode is over. Press **New episode** to play another."
    return None


def _status_after_turn(session) -> str:
    obs = session.observation
    return fmt.format_outcome(obs) if obs.done else f"Turn {obs.turn} judged. Next: {obs.kind}."


def build(services) -> None:
    """Lay out the tab inside the current ``gr.Blocks`` and wire its events."""
    session = gr.State(None)
    with gr.Row():
        families = family_choices()
        family = gr.Dropdown(families, value=default_family(families), label="Family")
        level = gr.Dropdown(list(LEVELS), value="easy", label="Level")
        seed = gr.Textbox(label="Seed (blank = random)", placeholder="e.g. 7")
        source = gr.Radio(list(SOURCES), value=CHOSEN, label="Task source")
    start = gr.Button("New episode", variant="primary")
    task = gr.Markdown(fmt.format_task(None), elem_id="episode-task")
    with gr.Row():
        text = gr.Textbox(label="Your answer", placeholder="e.g. Answer: 7", scale=4, elem_id="episode-answer")
        submit = gr.Button("Submit answer", variant="primary", scale=1)
        by_model = gr.Button("Let the model answer", scale=1)
    status = gr.Markdown(elem_id="episode-status")
    with gr.Row():
        verdict = gr.Markdown(fmt.format_verdict(None), elem_id="episode-verdict")
        reward = gr.Markdown(fmt.format_reward(None), elem_id="episode-reward")
        guidance = gr.Markdown(elem_id="episode-guidance")
    history = gr.Dataframe(headers=fmt.HISTORY_COLUMNS, label="Episode history", interactive=False, wrap=True,
                           column_widths=["5%", "9%", "22%", "11%", "4%", "6%", "5%", "17%", "6%", "15%"], max_height=1000)
    bank = gr.Button("Add to failure bank", variant="secondary")
    with gr.Accordion("Raw episode state (JSON)", open=False):
        raw = gr.JSON(label="env.state")
    shown = [session, task, verdict, reward, guidance, history, status, raw]
    start.click(partial(new_episode, services), [session, family, level, seed, source], shown, api_name="new_episode")
    for trigger, name in ((submit.click, "answer"), (text.submit, "answer_enter")):
        trigger(partial(answer, services), [session, text], shown, api_name=name,
                api_visibility="public" if name == "answer" else "undocumented",
                ).then(clear_box, None, text, api_name=f"{name}_clear", api_visibility="private")
    by_model.click(partial(model_answer, services), [session], shown, api_name="model_answer")
    bank.click(partial(bank_episode, services), [session], shown, api_name="bank_episode")
