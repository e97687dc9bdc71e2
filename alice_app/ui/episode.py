"""Episode tab: play one 5-turn episode by hand or let the policy answer.

Each browser session keeps its own ``EpisodeSession`` in ``gr.State`` (an environment of its own,
from ``services.new_environment()``), so two users never see each other's episode.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any

import gradio as gr

from alice_app.services import turn_modes
from alice_app.types import LEVELS, MAX_SAMPLES, Task, Verdict
from alice_app.ui import conversation as chat
from alice_app.ui import formatting as fmt
from alice_app.ui import inputs

CHOSEN = "family and level chosen above"
SOURCES = (CHOSEN, "next from curriculum: hunt", "next from curriculum: repair")
TEMPLATE = "the family's template"
# The Wording radio's labels -> env.reset's wording (alice_app.tasks.wordings).
WORDING_CHOICES = {TEMPLATE: "template", "free (composed from many frames)": "free"}
MODEL_MAX_TOKENS = 96
SAMPLES_LABEL = "Confidence samples k (tier 3; 1 = off)"
SAMPLE_CHOICES = (1, 4, 8)
SOURCE_LABEL = "manual"  # how the bank labels failures of episodes played in the workbench
EXAMPLES = [["negation_arithmetic", "easy", "7"], ["negated_comparison", "medium", "3"],
            ["false_claim", "easy", "11"], ["distractor_order_of_ops", "hard", "5"]]
CONTROL_WIDTH = 200  # px: the model controls wrap one per line below about twice this (a phone)
# What every handler returns, in order (the outputs of each event).
OUTPUT_NAMES = ("session", "task", "chat", "status", "state", "answer_box")


@dataclass
class EpisodeSession:
    """One browser session's environment, the last observation, and what was banked by hand."""

    env: Any
    observation: Any = None
    answerer: str | None = None
    repairs: dict | None = None  # the banked failure a repair task repairs (its bank row)
    banked: dict = field(default_factory=dict)  # "episode" → the failure id this session banked by hand


def family_choices() -> list[str]:
    import alice_app.tasks  # noqa: F401  (importing the package registers the built-in families)
    from alice_app.tasks.registry import family_names

    return family_names()


def wording_info() -> str:
    """The Wording radio's help: which registered families can be worded freely (the registry says)."""
    from alice_app.tasks.wordings import worded_families

    return f"free: the same task worded from many frames ({', '.join(worded_families())})"


def default_family(families: list[str]) -> str | None:
    """The flagship family when it is registered, else the first one."""
    return "negation_arithmetic" if "negation_arithmetic" in families else (families[0] if families else None)


def example_labels(examples: list[list[str]]) -> list[str]:
    """"negation_arithmetic · easy · seed 7": examples as buttons that wrap on a phone (a table clips)."""
    return [f"{family} · {level} · seed {seed}" for family, level, seed in examples]


def reset_options(family: str | None, level: str | None, seed: Any, source: str,
                  wording: str = TEMPLATE) -> dict[str, Any]:
    """Map the form onto ``env.reset`` keyword arguments (pure, unit-tested)."""
    seed = inputs.parse_seed(seed)
    wording = WORDING_CHOICES.get(wording, wording)  # the radio's label, or an API client's value
    if source == CHOSEN:
        if not family or level not in LEVELS:
            raise ValueError("Pick a family and a level, or choose 'next from curriculum'.")
        return {"seed": seed, "family": family, "level": level, "mode": "hunt", "wording": wording}
    mode = source.rsplit(" ", 1)[-1]
    return {"seed": seed, "mode": mode, "wording": wording}


def outputs(session: EpisodeSession | None, status: str = "", box: Any = None) -> tuple:
    """Everything the tab shows, in the order of ``build``'s output components; ``box`` is the
    answer box's new value (None leaves what the user typed)."""
    obs = session.observation if session else None
    state = session.env.state if session and obs is not None else {}
    history = list(state.get("history") or [])
    modes = turn_modes(state["task"], history) if history else []
    next_prompt = obs.messages[-1]["content"] if obs is not None and not obs.done else None
    messages = chat.chat_messages(state, next_prompt, modes, obs.hint if obs is not None else None)
    card = chat.format_task_card(obs, state, session.answerer if session else None, session.repairs if session else None)
    return session, card, messages, status, state, gr.skip() if box is None else box


def new_episode(services, session, family, level, seed, source, wording=None):
    try:
        options = reset_options(family, level, seed, source, wording or TEMPLATE)
        session = session or EpisodeSession(env=services.new_environment(source=SOURCE_LABEL))
        session.observation = session.env.reset(**options)
    except (ValueError, LookupError) as exc:
        return outputs(session, f"⚠ {exc}")
    repair_of = session.observation.info.get("repair_of")
    session.answerer, session.banked = None, {}
    session.repairs = services.bank.get(repair_of) if repair_of else None
    return outputs(session, "New episode: type an answer or let the model answer.", box="")


def answer(services, session, text):
    """Judge a typed answer; the box is emptied in the same update, so a second trigger finds it blank."""
    problem = _cannot_answer(session)
    if problem:
        return outputs(session, problem)
    if not str(text or "").strip():
        return outputs(session, "⚠ Type an answer first (e.g. 'Answer: 7').")
    try:
        session.observation = session.env.step(str(text))
    except ValueError as exc:  # e.g. an answer over the size limit; the episode is unchanged
        return outputs(session, f"⚠ {exc}")
    session.answerer = "you"
    return outputs(session, _status_after_turn(session), box="")


def model_answer(services, session, k=1):
    """Generator: stream the model's answer into the status line, then show its judged answer.

    Backends with a ``stream`` method (the local transformers policy) show the text as it is
    decoded; the others (an HTTP endpoint) return the whole answer at once. With ``k`` > 1 the
    model also samples k answers to the same prompt; their agreement is the verdict's confidence
    (tier 3), and a right but unstable first answer is banked as ``unstable``.
    """
    yield from _model_turns(services, session, 1, k)


def auto_play(services, session, k=1):
    """Generator: the model plays every remaining turn, one judged turn at a time."""
    yield from _model_turns(services, session, chat.TURNS, k)


def parse_samples(value: Any) -> int:
    return int(inputs.parse_number(SAMPLES_LABEL, value, whole=True, low=1, high=MAX_SAMPLES))


def _model_turns(services, session, turns: int, k: Any = 1):
    problem = _cannot_answer(session)
    if problem:
        yield outputs(session, problem)
        return
    try:
        k = parse_samples(k)
    except ValueError as exc:
        yield outputs(session, f"⚠ {exc}")
        return
    for _ in range(turns):
        if session.observation.done:
            return
        yield outputs(session, "The model is answering (the first call also loads the model)…")
        text = ""
        try:
            messages = list(session.observation.messages)
            for text in _answer_pieces(services.policy, messages):
                yield outputs(session, f"The model is answering: {fmt.shorten(text, 400)}▌")
            samples = None
            if k > 1:
                yield outputs(session, f"Drawing {k} more samples for the confidence (tier 3)…")
                samples = services.sample_answers(messages, k, max_tokens=MODEL_MAX_TOKENS)
            session.observation = session.env.step(text, samples=samples)
        except Exception as exc:  # a missing or broken model must not lose the episode
            yield outputs(session, f"⚠ The model could not answer: {exc}")
            return
        session.answerer = f"the model ({services.settings.model_name})"
        yield outputs(session, f"Model answered: {fmt.shorten(text, 200)}{_confidence_note(session, k)}"
                               f"\n\n{_status_after_turn(session)}")


def _confidence_note(session, k: int) -> str:
    verdict = session.observation.verdict or {}
    agreement = (verdict.get("details") or {}).get("consistency")
    if k < 2 or not agreement:
        return ""
    note = (f"\n\nTier 3: {agreement.get('samples', k)} samples, pass rate {float(agreement.get('pass_rate') or 0):.2f}, "
            f"confidence {float(verdict.get('confidence') or 0):.2f}")
    return note + (" — right but unstable: banked as `unstable`." if verdict["details"].get("unstable") else ".")


def _answer_pieces(policy, messages):
    """The answer so far, piece by piece where the backend streams, else once when complete."""
    if hasattr(policy, "stream"):
        yield from policy.stream(messages, max_tokens=MODEL_MAX_TOKENS)
    else:
        yield policy.generate([messages], n=1, temperature=0.0, max_tokens=MODEL_MAX_TOKENS)[0][0]


def redraw(session):
    """The conversation again, from the episode state (what the chat shows is never cleared by hand)."""
    return outputs(session, "The conversation always shows the whole episode; press **New episode** to start over.")


def bank_episode(services, session):
    """Bank a finished episode that was solved after a wrong start, labelled by its first wrong
    answer. An unsolved episode is banked by the environment itself, and an episode is banked at
    most once, so the bank never counts one episode twice."""
    state = session.env.state if session and session.observation is not None else {}
    history = state.get("history") or []
    if not history:
        return outputs(session, "⚠ Nothing to bank yet: answer at least once.")
    banked = state.get("failure_id") or session.banked.get("episode")
    if banked:
        return outputs(session, f"This episode is already in the failure bank as failure #{banked}.")
    if not state.get("done"):
        return outputs(session, "⚠ Finish the episode first: an unsolved episode is banked automatically, "
                                "a solved one can be banked here for its wrong turns.")
    wrong = next((turn for turn in history if not turn["verdict"]["is_correct"]), None)
    if wrong is None:
        return outputs(session, "Every answer so far was judged correct; there is no failure to bank.")
    failure_id = services.bank.record(Task.from_dict(state["task"]), wrong["response"],
                                      Verdict.from_dict(wrong["verdict"]), source=SOURCE_LABEL, history=history)
    session.banked["episode"] = failure_id
    return outputs(session, f"Added to the failure bank as failure #{failure_id}.")


def _cannot_answer(session) -> str | None:
    if session is None or session.observation is None:
        return "⚠ Start an episode first (press **New episode**)."
    if session.observation.done:
        return "This episode is over. Press **New episode** to play another."
    return None


def _status_after_turn(session) -> str:
    obs = session.observation
    return fmt.format_outcome(obs) if obs.done else f"Turn {obs.turn} judged. Next: {obs.kind}."


def model_line(services) -> str:
    """The "Model:" line: the policy that answers now (a loaded one's id, else the configured model)."""
    return chat.format_model(services.settings, getattr(services.loaded_policy, "model_id", None))


def build(services) -> dict:
    """Lay out the tab inside the current ``gr.Blocks`` and wire its events; returns the model line's refresh
    (run when the tab is opened and on page load: the Training tab can swap a trained adapter in)."""
    session = gr.State(None)
    gr.Markdown(chat.HOW_TO, elem_id="episode-howto")
    with gr.Row():
        with gr.Column(scale=3):
            with gr.Row():
                families = family_choices()
                family = gr.Dropdown(families, value=default_family(families), label="Family")
                level = gr.Dropdown(list(LEVELS), value="easy", label="Level")
                seed = gr.Textbox(label="Seed (blank = random)", placeholder="e.g. 7")
            source = gr.Radio(list(SOURCES), value=CHOSEN, label="Task source")
            wording = gr.Radio(list(WORDING_CHOICES), value=TEMPLATE, label="Wording", info=wording_info(),
                               elem_id="episode-wording")
            start = gr.Button("New episode", variant="primary")
        with gr.Column(scale=2):
            gr.Examples(EXAMPLES, [family, level, seed], label="Example tasks (click one, then New episode)",
                        example_labels=example_labels(EXAMPLES))
    task = gr.Markdown(chat.format_task_card(None, {}), elem_id="episode-task")
    # The toolbar's Clear (trash) button is hidden by the workbench CSS: the chat mirrors the episode state.
    conversation = gr.Chatbot(label="Episode", show_label=False, elem_id="episode-chat", height=520, buttons=["copy"],
                              feedback_options=None, placeholder="The task and every turn appear here.")
    with gr.Row():
        text = gr.Textbox(label="Your answer", placeholder="e.g. Answer: 7", scale=4, elem_id="episode-answer")
        submit = gr.Button("Submit answer", variant="primary", scale=1)
    model_shown = gr.Markdown(model_line(services), elem_id="episode-model")
    # min_width wraps the row on a phone (one control per line) instead of squeezing each control; the
    # model line stays above it, since a tall text in the row would stretch every button to its height.
    with gr.Row(equal_height=True, elem_id="episode-model-row"):
        samples = gr.Dropdown(list(SAMPLE_CHOICES), value=1, label=SAMPLES_LABEL, elem_id="episode-samples",
                              min_width=CONTROL_WIDTH)
        by_model = gr.Button("Let the model answer (1 turn)", min_width=CONTROL_WIDTH)
        autoplay = gr.Button("Auto-play the 5 turns", min_width=CONTROL_WIDTH)
        bank = gr.Button("Add to failure bank", variant="secondary", min_width=CONTROL_WIDTH)
    status = gr.Markdown(elem_id="episode-status")
    with gr.Accordion("Raw episode state (JSON)", open=False):
        raw = gr.JSON(label="env.state")
    shown = [session, task, conversation, status, raw, text]
    start.click(partial(new_episode, services), [session, family, level, seed, source, wording], shown,
                api_name="new_episode")
    # One event for Enter and Submit, ignored while pending: Enter-then-Submit plays one answer, not two.
    gr.on([submit.click, text.submit], partial(answer, services), [session, text], shown, api_name="answer",
          trigger_mode="once")
    by_model.click(partial(model_answer, services), [session, samples], shown, api_name="model_answer",
                   trigger_mode="once")
    autoplay.click(partial(auto_play, services), [session, samples], shown, api_name="auto_play", trigger_mode="once")
    bank.click(partial(bank_episode, services), [session], shown, api_name="bank_episode")
    # Should a Clear ever reach the chat (the hidden toolbar button), redraw it from the episode state.
    conversation.clear(redraw, [session], shown, api_name="redraw_episode", api_visibility="private")
    return dict(fn=partial(model_line, services), inputs=None, outputs=model_shown)
