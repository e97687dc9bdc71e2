"""Control twins: each deceptive family's task with its deception removed.

A twin keeps the family task's seed, level and numbers and asks the same thing plainly, so
"control accuracy − family accuracy" (the distraction penalty) isolates what the deception costs.
negation_arithmetic's twin is plain_arithmetic's task; the others are named ``<family>_control``
and are not menu families (the verifier needs no registration to check them).
"""
from __future__ import annotations

from alice_app.tasks import distractor_order_of_ops, double_negation, exclusion_counting, negated_comparison, plain_arithmetic
from alice_app.tasks._arith import SHAPES, ask, evaluate, free_question, sentence
from alice_app.tasks._common import ANSWER_FORMAT, canonical, join_numbers
from alice_app.tasks.registry import core_family_names, family_names, has_control, register_control
from alice_app.tasks.wordings import comparison_question, counting_question, negation_question, wording_key
from alice_app.types import Task

# negated_comparison template -> the plain comparison asking for the same option
COMPARISON = {"not_larger": "is the smaller", "not_smaller": "is the larger", "not_greater": "is less than the other",
              "middle": "lies between the other two", "swap_not_larger": "is the smaller",
              "swap_not_smaller": "is the larger", "expr_not_larger": "is the smaller",
              "expr_not_smaller": "is the larger", "second_smallest": "is the second smallest"}


def twin(task: Task, family: str, question: str, answer, hint: str, **metadata) -> Task:
    return Task(id=family + task.id[len(task.family):], family=family, level=task.level,
                prompt=f"{question}\n{ANSWER_FORMAT}", answer=canonical(answer), hint=hint, seed=task.seed,
                metadata={**task.metadata, "distractors": [], "negated": False, "control_of": task.family,
                          **metadata})


def _question(task: Task, tail: str = "") -> str:
    """The family task's question, asked plainly in the same words ("What is 3 + 4?", "Add 3 and 4.")."""
    meta = task.metadata
    if meta["params"].get("wording") == "free":
        return free_question(task.family, task.level, task.seed, meta["template"], meta["operands"], meta["expression"])
    shape, phrasing = SHAPES[meta["template"]], meta["params"].get("phrasing", "symbols")
    request, mark = ask(shape, task.metadata["operands"], phrasing)
    return sentence(request + tail, mark)


def plain_twin(task: Task) -> Task:
    made = plain_arithmetic.from_twin(task)
    return Task(**{**made.__dict__, "id": plain_arithmetic.NAME + task.id[len(task.family):],
                   "metadata": {**made.metadata, "control_of": task.family}})


def false_claim_twin(task: Task) -> Task:
    return twin(task, "false_claim_control", _question(task), int(task.answer),
                "Evaluate the expression.")


def order_of_ops_twin(task: Task) -> Task:
    return twin(task, "distractor_order_of_ops_control", _question(task, distractor_order_of_ops.PRECEDENCE),
                int(task.answer), "Multiplication before addition and subtraction.")


def _phrasing(task: Task, family) -> str:
    """The family task's phrasing (older stored tasks predate the param: the family's first)."""
    return task.metadata["params"].get("phrasing") or next(iter(family.PHRASINGS))


def double_negation_twin(task: Task) -> Task:
    texts = task.metadata["candidates"]
    meant = next(t for t in texts if canonical(evaluate(t)) == task.answer)
    key = _free(task)
    if key:
        question = negation_question(texts, meant, 0, key)
    else:
        choice, ask = double_negation.offer(_phrasing(task, double_negation), texts)
        question = f"{choice} The answer is {meant}. {ask}"
    return twin(task, "double_negation_control", question, int(task.answer), "Evaluate the named candidate.")


def _free(task: Task) -> str | None:
    """The wording key of a freely worded family task (its twin picks the same frame), else None."""
    free = task.metadata["params"].get("wording") == "free"
    return wording_key(task.family, task.level, task.seed) if free else None


def comparison_twin(task: Task) -> Task:
    texts, key, plainly = task.metadata["options"], _free(task), COMPARISON[task.metadata["template"]]
    question = (comparison_question(texts, plainly, key) if key else
                negated_comparison.ask(_phrasing(task, negated_comparison), "start", plainly, texts))
    if task.metadata["template"].startswith("expr"):
        question += " Give its value."
    return twin(task, "negated_comparison_control", question, int(task.answer), "Compare the options.")


def exclusion_twin(task: Task) -> Task:
    values, key, positive = task.metadata["operands"], _free(task), task.metadata["positive"]
    question = (counting_question(", ".join(map(str, values)), positive, None, key) if key else
                exclusion_counting.ask(_phrasing(task, exclusion_counting), "end", positive, join_numbers(values)))
    return twin(task, "exclusion_counting_control", question, len(values) - int(task.answer),
                "Count the numbers that have the property.")


def default_families() -> list[str]:
    """The core families and the registered families their twins belong to (plain_arithmetic): what training and
    eval take when no family is named. The challenger family and reasoning-gym adapters are opt-in: they have no
    control twin, and the challenger's templates depend on what the store holds."""
    core = core_family_names()
    return core + sorted({twin_name(family) for family in core} & set(family_names()))


def twin_name(family: str) -> str | None:
    """The family name a twin of ``family``'s tasks carries, or None when it has none."""
    if not has_control(family):
        return None
    return plain_arithmetic.NAME if family == "negation_arithmetic" else f"{family}_control"


for _family, _build in {"negation_arithmetic": plain_twin, "false_claim": false_claim_twin,
                        "distractor_order_of_ops": order_of_ops_twin, "double_negation": double_negation_twin,
                        "negated_comparison": comparison_twin, "exclusion_counting": exclusion_twin}.items():
    register_control(_family, _build)
