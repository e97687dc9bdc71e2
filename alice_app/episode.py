"""The 5-turn episode: a pure, serialisable state machine (no I/O, no model, no verifier calls).

T1 attempt → T2 verifier feedback → T3 reflection prompt → T4 structural hint → T5 final attempt.
Every turn is one policy response judged by the verifier; the episode ends as soon as one is
correct, or after the fifth (or after ``turn_limit`` turns: a recheck plays the unaided attempt only).
The caller verifies each response and hands the verdict to :func:`advance`, so the same episode can
be driven by a person, a model or a test.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping

from .reward import compute_reward
from .types import TURN_KINDS, Task, Turn, Verdict

SYSTEM_PROMPT = (
    "You are solving short arithmetic and logic puzzles. Read every word of the question: "
    "negations and numbers to ignore matter. Think briefly, then finish with a line "
    "'Answer: <number>'."
)
TEXT_SYSTEM_PROMPT = SYSTEM_PROMPT.replace("'Answer: <number>'", "'Answer: <answer>'")  # text answers


def system_prompt(task: Task) -> str:
    """The system message for ``task``: it asks for a number unless the task's answer is text."""
    return TEXT_SYSTEM_PROMPT if task.wants_text_answer else SYSTEM_PROMPT


REFLECTION_PROMPT = (
    "Before answering again, reflect: restate in your own words what the question asks, name any "
    "number or claim it tells you to ignore, and say which operation is needed. Then give your answer."
)
FINAL_PROMPT = "This is your last attempt. Give your final answer as 'Answer: <number>'."
FINAL_TEXT_PROMPT = "This is your last attempt. Give your final answer as 'Answer: <answer>'."  # text answers
RETRY = "Try again."


@dataclass(frozen=True)
class Episode:
    task: Task
    turns: tuple[Turn, ...] = ()
    done: bool = False
    solved: bool = False
    turn_limit: int = len(TURN_KINDS)  # the episode ends after this many turns (1 = the unaided attempt only)

    @property
    def next_kind(self) -> str | None:
        """The kind of the next turn (one of TURN_KINDS), or None when the episode is over."""
        return None if self.done else TURN_KINDS[len(self.turns)]

    @property
    def total_reward(self) -> float:
        return round(sum(turn.reward.total for turn in self.turns), 6)

    def next_prompt(self) -> str:
        """The user message that opens the next turn."""
        kind = self.next_kind
        if kind is None:
            raise ValueError("the episode is over; start a new one")
        if kind == "attempt":
            return self.task.prompt
        if kind == "feedback":
            return f"{self.turns[-1].verdict.feedback} {RETRY}"
        if kind == "reflection":
            return REFLECTION_PROMPT
        if kind == "hint":
            return f"Hint: {self.task.hint} {RETRY}"
        return FINAL_TEXT_PROMPT if self.task.wants_text_answer else FINAL_PROMPT

    def messages(self) -> list[dict[str, str]]:
        """Chat history for the policy: system, then user/assistant pairs, then the next prompt."""
        history = [{"role": "system", "content": system_prompt(self.task)}]
        for turn in self.turns:
            history += [{"role": "user", "content": turn.prompt}, {"role": "assistant", "content": turn.response}]
        if not self.done:
            history.append({"role": "user", "content": self.next_prompt()})
        return history

    def to_dict(self) -> dict[str, Any]:
        return {
            "task": self.task.to_dict(),
            "turns": [turn.to_dict() for turn in self.turns],
            "done": self.done,
            "solved": self.solved,
            "turn_limit": self.turn_limit,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Episode":
        return cls(
            task=Task.from_dict(data["task"]),
            turns=tuple(Turn.from_dict(turn) for turn in data.get("turns") or ()),
            done=bool(data.get("done", False)),
            solved=bool(data.get("solved", False)),
            turn_limit=check_turn_limit(data.get("turn_limit", len(TURN_KINDS))),
        )


def check_turn_limit(turns: int) -> int:
    """``turns`` if an episode can be cut there (1..5), else ValueError."""
    if isinstance(turns, bool) or not isinstance(turns, int) or not 1 <= turns <= len(TURN_KINDS):
        raise ValueError(f"an episode has 1 to {len(TURN_KINDS)} turns, not {turns!r}")
    return turns


def new_episode(task: Task, turns: int = len(TURN_KINDS)) -> Episode:
    """A fresh episode of ``task`` that ends when solved or after ``turns`` turns (the first ``turns`` of
    attempt, feedback, reflection, hint, final)."""
    return Episode(task=task, turn_limit=check_turn_limit(turns))


def advance(episode: Episode, response: str, verdict: Verdict) -> Episode:
    """The episode after ``response`` (judged ``verdict``) answers the next prompt."""
    if episode.done:
        raise ValueError("the episode is over; start a new one")
    index = len(episode.turns) + 1
    previous = [turn.verdict.extracted for turn in episode.turns]
    turn = Turn(
        index=index,
        kind=TURN_KINDS[index - 1],
        prompt=episode.next_prompt(),
        response=response,
        verdict=verdict,
        reward=compute_reward(verdict, index, response, previous),
    )
    solved = bool(verdict.is_correct)
    return replace(
        episode, turns=(*episode.turns, turn), solved=solved, done=solved or index == episode.turn_limit
    )
