"""Specific feedback: say *what* went wrong without ever revealing the right answer.

The text is what the policy sees at turn 2 of an episode, so it names the mistake ("the number
the task told you to ignore", "7 − 3 = 4 but the task asks for 7 + 3") and how to format an
answer, but never the expected value.
"""
from __future__ import annotations

from ..failure_modes import asked_expression, diagnose
from ..types import HEDGED, UNEVALUATED, Task

FORMAT_HELP = (
    # No example number: it could be the very answer the policy is looking for.
    "I could not find an answer in your reply. End it with a final line of the form "
    "'Answer: <number>', with just the number after the colon."
)
TEXT_FORMAT_HELP = (
    "I could not find an answer in your reply. End it with a final line of the form "
    "'Answer: <answer>', with just your answer after the colon."
)
HEDGE_HELP = (
    "Your answer line offers more than one value, and a hedge is not an answer. Commit to one: "
    "end with a final line 'Answer: <number>' holding a single number."
)
UNEVALUATED_HELP = (
    "Your answer line writes out a computation instead of its result. Work it out and end with a "
    "final line 'Answer: <number>' holding the single number it comes to."
)
ORACLE_UNAVAILABLE = "The semantic oracle is unavailable, so this rests on the programmatic check alone"


def write_feedback(task: Task, is_correct: bool, extracted: str | None, method: str = "") -> str:
    """One or two sentences for the policy about its answer ``extracted`` to ``task`` (``method``:
    how tier 1 found it; HEDGED when the answer line offered several values)."""
    if is_correct:
        return f"Correct: {extracted} is the right answer." if extracted else "Correct."
    if method == HEDGED:
        return HEDGE_HELP
    if method == UNEVALUATED:
        return UNEVALUATED_HELP
    diagnosis = diagnose(task, extracted)
    if diagnosis.mode == "format":
        return TEXT_FORMAT_HELP if task.wants_text_answer else FORMAT_HELP
    if diagnosis.mode == "distractor_echo":
        return f"You answered {extracted}, which is the number the task told you to ignore."
    if diagnosis.mode == "operator_confusion":
        return _operator_feedback(task, extracted, diagnosis.detail)
    if diagnosis.mode == "negation_flip":
        return (
            f"You answered {extracted}, which is what you get by misreading the negation: "
            "re-read what the task rules out."
        )
    return f"You answered {extracted}, which is not correct. Recheck each step of the task."


def _operator_feedback(task: Task, extracted: str | None, detail: str) -> str:
    asked = asked_expression(task)
    if detail and asked:
        return f"You answered {detail} but the task asks for {asked}."
    return (
        f"You answered {extracted}, which comes from combining the numbers the wrong way: "
        "check which operation the task asks for and in what order."
    )
