"""The engine's own solution of a task, written out as a careful solver would: the working, then the answer
line. Built from the task's metadata (the numbers the family drew), never from a model, so it is correct
by construction; the warm start (``TrainConfig.warm_start_source="worked"``) teaches it.

* an arithmetic task (``expression`` in its metadata: negation_arithmetic, false_claim, plain_arithmetic,
  distractor_order_of_ops): its expression evaluated one operation a line, each line restating the whole
  expression ("1 + 8 × 5 = 1 + 40", "1 + 40 = 41");
  the distractors never appear;
* negated_comparison: each option that is an expression worked out (the answer's last), then the values in
  order with their ends named ("16 < 93: smaller 16, larger 93.") and which of them the
  question rules out ("93 is the larger, so the answer is 16.");
* exclusion_counting: the numbers that have the property, the others, and how many the others are;
* double_negation: how many negations there are, whether they cancel, which candidate that leaves, and its
  working;
* a control twin: the same, less the negation (the values in order and their ends, the numbers that have the
  property, the named candidate);
* any other task (reasoning-gym adapters): the answer line alone.
"""
from __future__ import annotations

from alice_app.arithmetic import value, working
from alice_app.tasks._common import join_numbers
from alice_app.types import Task

def worked_solution(task: Task) -> str:
    """The working lines of ``task`` and its "Answer: …" line, one per line."""
    return "\n".join([*worked_steps(task), f"Answer: {task.answer}"])


def worked_steps(task: Task) -> list[str]:
    """The working of ``task`` (see the module docstring); [] when its family has none."""
    metadata = task.metadata or {}
    if metadata.get("expression"):
        return working(str(metadata["expression"]))
    solve = _BY_OPERATOR.get(str(metadata.get("operator")))
    if solve:
        return solve(task)
    return _double_negation(task) if metadata.get("negation_depth") else []


def _comparison(task: Task) -> list[str]:
    options, values = task.metadata["options"], task.metadata["values"]
    answer_first = sorted(zip(options, values), key=lambda pair: str(pair[1]) == task.answer)
    steps = [line for option, _ in answer_first for line in working(option)] + [_ends(sorted(values))]
    if task.metadata.get("control_of"):  # the control twin asks for the answer's place outright
        return steps
    from alice_app.tasks.negated_comparison import EXTREMES, TEMPLATES

    ruled_out = [f"{join_numbers(pick(sorted(values)))} {says}"
                 for pick, says in (EXTREMES[name] for name in TEMPLATES[task.metadata["template"]][0])]
    return steps + [f"{' and '.join(ruled_out)}, so the answer is {task.answer}."]


def _ends(ordered: list) -> str:
    """The values in order and which is which: "19 < 78: smaller 19, larger 78." The
    ends are named the same way whatever the question asks, so that the line after only has to find the
    extreme the question rules out in it."""
    low, high = ("smaller", "larger") if len(ordered) == 2 else ("smallest", "largest")
    return f"{' < '.join(map(str, ordered))}: {low} {ordered[0]}, {high} {ordered[-1]}."


def _counting(task: Task) -> list[str]:
    counted, listed = task.metadata.get("counted"), task.metadata["operands"]
    if counted is None:
        return []
    others = list(listed)
    for number in counted:
        others.remove(number)
    named, listing = task.metadata["positive"], lambda numbers: ", ".join(map(str, numbers)) or "none"
    if task.metadata.get("control_of"):  # the control twin counts the numbers that have the property
        return [f"The numbers that {named}: {listing(others)}. {_that_many(others)}"]
    return [f"The numbers that {named}: {listing(others)}.", f"The others: {listing(counted)}. {_that_many(counted)}"]


def _that_many(numbers: list) -> str:
    return f"That is {len(numbers)} number{'' if len(numbers) == 1 else 's'}."


def _double_negation(task: Task) -> list[str]:
    depth, named = int(task.metadata["negation_depth"]), str(task.metadata["named"])
    chosen = [c for c in task.metadata.get("candidates", ()) if str(value(str(c))) == task.answer]
    if len(chosen) != 1:
        return []
    if task.metadata.get("control_of"):  # the control twin names the answer outright
        return working(str(chosen[0]))
    rule = (f"{depth} negations cancel out, so the answer is {named}." if depth % 2 == 0 else
            f"1 negation: the answer is not {named}, so it is {chosen[0]}." if depth == 1 else
            f"{depth} negations leave one: the answer is not {named}, so it is {chosen[0]}.")
    return [rule, *working(str(chosen[0]))]


_BY_OPERATOR = {"compare": _comparison, "count": _counting}
