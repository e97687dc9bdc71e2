import pytest

from alice_app.tasks import generate_task


@pytest.mark.parametrize("count", [1, 2, 3])
def test_every_claim_is_stated_and_wrong(count):
    task = generate_task("false_claim", "medium", 4, distractors=count, template="mul", operands=(6, 7))
    claimed = task.metadata["distractors"]
    assert task.answer == "42" and len(claimed) == count and 42 not in claimed
    assert all(f" {c}" in task.prompt for c in claimed)


def test_claims_can_follow_the_question():
    task = generate_task("false_claim", "easy", 1, clause_position="end", template="add", operands=(3, 4))
    assert task.prompt.startswith("What is 3 + 4? Ann says")


def test_forms_change_the_verdict_sentence():
    wrong = generate_task("false_claim", "easy", 1, negation_form="wrong").prompt
    not_correct = generate_task("false_claim", "easy", 1, negation_form="not_correct").prompt
    assert "That is wrong." in wrong and "That is NOT correct." in not_correct
