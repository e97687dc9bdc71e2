"""The engine's worked solutions (alice_app.tasks.solutions): correct, self-consistent, and free of
distractors, for every family, level and control twin."""
import pytest

from alice_app.shortcuts import contradicts_own_result
from alice_app.tasks.registry import control_of, family_names, generate_task, has_control
from alice_app.tasks.solutions import worked_solution, worked_steps
from alice_app.tasks.wordings import worded_families
from alice_app.verify.stack import VerifierStack

VERIFIER = VerifierStack()


def _tasks(family):
    for level in ("easy", "medium", "hard"):
        for seed in range(8):
            task = generate_task(family, level, seed)
            yield task
            if has_control(family):
                yield control_of(task)


@pytest.mark.parametrize("family", family_names())
def test_the_solution_is_accepted_and_agrees_with_its_own_working(family):
    for task in _tasks(family):
        text = worked_solution(task)
        verdict = VERIFIER.verify(task, text)
        assert verdict.is_correct and text.endswith(f"Answer: {task.answer}"), (task.id, task.family, text)
        assert not contradicts_own_result(text, verdict.extracted), (task.id, task.family, text)


@pytest.mark.parametrize("family", [f for f in family_names() if not f.startswith("rg_")])
def test_every_built_in_family_shows_its_working_and_never_computes_with_a_distractor(family):
    for task in _tasks(family):
        steps = worked_steps(task)
        named_number = task.family == "double_negation_control" and task.metadata["named"].isdigit()
        assert steps or named_number, (task.id, task.family)  # "The answer is 8." leaves nothing to work out
        operands = {str(n) for n in task.metadata.get("operands", ())}
        lonely = {str(d) for d in task.metadata.get("distractors", ())} - operands
        assert not any(d in step.split() for step in steps for d in lonely), (task.id, steps)


def test_the_working_of_each_kind():
    assert worked_solution(generate_task("distractor_order_of_ops", "easy", 3)) == \
        "1 + 8 × 5 = 1 + 40\n1 + 40 = 41\nAnswer: 41"
    count = generate_task("exclusion_counting", "easy", 5)  # how many of 4, 1, 3, 2, 6 are NOT greater than 2?
    assert worked_steps(count) == ["The numbers that are greater than 2: 4, 3, 6.", "The others: 1, 2. That is 2 numbers."]
    assert worked_steps(control_of(count)) == ["The numbers that are greater than 2: 4, 3, 6. That is 3 numbers."]
    one = control_of(generate_task("exclusion_counting", "easy", 3))  # how many of 1, 8, 5 and 9 are even?
    assert worked_steps(one) == ["The numbers that are even: 8. That is 1 number."]
    triple = generate_task("double_negation", "hard", 5, template="triple_paren")  # three negations of "3 + 2 × 6"
    assert worked_steps(triple) == ["3 negations leave one: the answer is not 3 + 2 × 6, so it is (3 + 2) × 6.",
                                    "(3 + 2) × 6 = 5 × 6", "5 × 6 = 30"]
    second = generate_task("negated_comparison", "hard", 5)  # not the smallest, not one of the two largest
    ends = "16 < 41 < 69 < 93: smallest 16, largest 93."
    assert worked_steps(second) == [ends,
                                    "16 is the smallest and 69 and 93 are the two largest, so the answer is 41."]
    assert worked_steps(control_of(second)) == [ends]  # the twin asks for the second smallest
    pair = generate_task("negated_comparison", "easy", 0, template="not_smaller", operands=(19, 78), wording="free")
    assert worked_steps(pair) == ["19 < 78: smaller 19, larger 78.",
                                  "19 is the smaller, so the answer is 78."]


@pytest.mark.slow
def test_every_worked_solution_fits_in_the_evaluation_token_budget(embedded_models_dir):
    """A model answering the way the warm start teaches must reach its answer line within EVAL_MAX_TOKENS, in
    every wording the warm start teaches (a free wording's property words can be longer than a template's)."""
    from transformers import AutoTokenizer

    from alice_app.config import EVAL_MAX_TOKENS

    tokenizer = AutoTokenizer.from_pretrained(embedded_models_dir / "SmolLM2-135M-Instruct")
    asked = [generate_task(family, level, seed, **({"wording": "free"} if free else {}))
             for family in family_names() if not family.startswith("rg_")
             for free in ([False, True] if family in worded_families() else [False])
             for level in ("easy", "medium", "hard") for seed in range(60)]
    longest = max((len(tokenizer(worked_solution(task))["input_ids"]) + 1, task.id)  # + the end-of-text token
                  for task in asked + [control_of(task) for task in asked if has_control(task.family)])
    assert 48 < longest[0] <= EVAL_MAX_TOKENS, longest
