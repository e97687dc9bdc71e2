"""The episode as a conversation: pure functions from the environment's state to ``gr.Chatbot``
messages, the task card with its turn stepper, and the model line.

The environment speaks as the "user" (the task, then feedback, reflection prompt, hint and final
prompt), the answerer as the "assistant"; each answer carries a badge with its verdict (✓/✗, tier,
confidence), its reward and, when wrong, its failure mode. All text is escaped: task and model
text may hold ``<number>`` or HTML that a Markdown renderer would otherwise eat.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from alice_app.types import TURN_KINDS
from alice_app.ui.formatting import escape, format_answer_key, reward_parts, shorten

TURNS = len(TURN_KINDS)
SPEAKER = {"attempt": "Task", "feedback": "Verifier feedback", "reflection": "Reflection prompt",
           "hint": "Structural hint", "final": "Final prompt"}
HOW_TO = (
    "**How to use:** 1. pick a family, level and seed (or an example below) and press **New episode**. "
    "2. Type an answer such as `Answer: 7` and press Enter, or let the model answer one turn or all five. "
    "3. Read each verdict, reward and failure mode in the conversation; an unsolved episode is banked."
)


def environment_message(kind: str | None, text: Any) -> dict[str, str]:
    label = SPEAKER.get(kind or "", "Environment")
    return {"role": "user", "content": f"**{label}**\n\n{escape(text)}"}


def badge(turn: Mapping[str, Any], mode: str | None) -> str:
    """"✗ wrong · tier 1 · confidence 1.00 · reward -0.200 · mode `distractor_echo`"."""
    verdict = turn.get("verdict") or {}
    total, _ = reward_parts(turn.get("reward"))
    parts = ["✓ correct" if verdict.get("is_correct") else "✗ wrong", f"tier {verdict.get('tier')}",
             f"confidence {float(verdict.get('confidence') or 0):.2f}"]
    if total is not None:
        parts.append(f"reward {total:+.3f}")
    if mode:
        parts.append(f"mode `{mode}`")
    return " · ".join(parts)


def answer_message(turn: Mapping[str, Any], mode: str | None) -> dict[str, str]:
    verdict = turn.get("verdict") or {}
    feedback = escape(verdict.get("feedback") or "")
    text = escape(turn.get("response") or "").strip() or "_(empty answer)_"
    return {"role": "assistant", "content": f"{text}\n\n---\n**{badge(turn, mode)}**" +
            (f"\n\n<small>{feedback}</small>" if feedback else "")}


def chat_messages(state: Mapping[str, Any], next_prompt: str | None, modes: Sequence[str | None] = (),
                  hint: str | None = None) -> list[dict[str, str]]:
    """The whole conversation so far; ``next_prompt`` is the environment's open message (None when done)."""
    if not state or not state.get("task"):
        return []
    messages: list[dict[str, str]] = []
    history = list(state.get("history") or [])
    for index, turn in enumerate(history):
        messages.append(environment_message(turn.get("kind"), turn.get("prompt")))
        messages.append(answer_message(turn, modes[index] if index < len(modes) else None))
    if next_prompt is not None and not state.get("done"):
        kind = TURN_KINDS[len(history)] if len(history) < TURNS else None
        messages.append(environment_message(kind, next_prompt))
    elif state.get("done"):
        messages.append({"role": "user", "content": format_ending(state, hint)})
    return messages


def format_ending(state: Mapping[str, Any], hint: str | None) -> str:
    turns = len(state.get("history") or [])
    if state.get("solved"):
        head = f"**Solved at turn {turns}.**"
    else:
        where = f" as failure #{state['failure_id']}" if state.get("failure_id") else ""
        mode = f" (mode `{state['failure_mode']}`, from the first attempt)" if state.get("failure_mode") else ""
        head = f"**Not solved after {TURNS} turns.** Banked{where}{mode}."
    return f"{head}\n\n{format_answer_key((state.get('task') or {}).get('answer'), hint)}"


def stepper(turns_played: int, done: bool) -> str:
    """"● ● ◉ ○ ○ turn 3 of 5": played, current, to come."""
    dots = ["●" if i < turns_played else ("○" if done or i > turns_played else "◉") for i in range(TURNS)]
    where = "finished" if done else f"turn {min(turns_played + 1, TURNS)} of {TURNS}"
    return f"{' '.join(dots)} **{where}**"


def format_task_card(observation: Any, state: Mapping[str, Any], answerer: str | None = None,
                     repairs: Mapping[str, Any] | None = None) -> str:
    """Family, level, task id, the turn stepper, the running total, who answers, and what a repair
    repairs (``repairs``: that failure's bank row, when it still exists)."""
    if observation is None:
        return "_No episode yet. Pick a family and level (or an example) and press **New episode**._"
    info = getattr(observation, "info", None) or {}
    rewards = state.get("rewards") or []
    lines = [f"**{observation.family}** · {observation.level} · `{escape(observation.task_id)}` · "
             f"{stepper(observation.turn, observation.done)} · episode total **{sum(rewards):+.3f}**"]
    if info.get("repair_of"):
        line = f"Repair task for banked failure **#{info['repair_of']}**"
        if repairs:
            line += (f": “{escape(shorten(repairs.get('prompt'), 90))}” was answered "
                     f"`{escape(shorten(repairs.get('response'), 40))}` (mode `{repairs.get('mode')}`)")
        lines.append(line + ".")
    if answerer:
        lines.append(f"Last answer by: {escape(answerer)}")
    return "\n\n".join(lines)


def format_model(settings: Any, model_id: str | None = None) -> str:
    """Which model the "Let the model answer" buttons call: ``model_id``, the loaded policy's, when one is loaded
    (a trained adapter swapped in from the Training tab shows as ``base+adapter``), else the configured one."""
    if getattr(settings, "api_base_url", None):
        return f"**Model:** {escape(settings.model_name)} at the endpoint {escape(settings.api_base_url)}"
    if model_id and model_id != settings.model_name:
        return f"**Model:** {escape(model_id)} (local, with a trained adapter; the Training tab's *Base model* undoes it)"
    return f"**Model:** {escape(settings.model_name)} (local)"
