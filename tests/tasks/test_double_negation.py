import pytest

from alice_app.config import HELD_OUT_SEED_START
from alice_app.tasks import generate_task
from alice_app.tasks._arith import evaluate
from alice_app.tasks.solutions import worked_solution


def test_negation_parity_decides_the_answer():
    for level in ("easy", "medium", "hard"):
        for seed in range(100):
            task = generate_task("double_negation", level, seed)
            named = evaluate(task.metadata["named"])
            values = [evaluate(c) for c in task.metadata["candidates"]]
            expected = named if task.metadata["negation_depth"] % 2 == 0 else next(v for v in values if v != named)
            assert int(task.answer) == expected


def test_wording_counts_the_negations():
    task = generate_task("double_negation", "hard", 0, template="quadruple", negation_form="not_true")
    assert task.prompt.count("not true that") == 3 and "the answer is not" in task.prompt
    assert task.metadata["negation_depth"] == 4


def test_the_issue_example_shape():
    task = generate_task("double_negation", "easy", 1, template="numbers", negations=2)
    assert "It is not true that the answer is not" in task.prompt


def test_the_parity_alternates_with_the_seed_so_the_named_candidate_scores_half_of_any_run_of_seeds():
    for level in ("easy", "medium", "hard"):
        for start in (0, 7, HELD_OUT_SEED_START):  # a held-out cell is ten consecutive seeds
            tasks = [generate_task("double_negation", level, seed) for seed in range(start, start + 10)]
            assert [task.metadata["negation_depth"] % 2 for task in tasks] == [seed % 2 for seed in range(start, start + 10)]
            assert sum(str(evaluate(task.metadata["named"])) == task.answer for task in tasks) == 5, (level, start)
    for level, counts in (("easy", {1, 2}), ("medium", {2, 3}), ("hard", {3, 4})):
        assert {generate_task("double_negation", level, seed).metadata["negation_depth"] for seed in range(200)} == counts


def test_a_template_given_by_hand_keeps_its_counts_on_either_seed():
    assert {generate_task("double_negation", "medium", seed, template="three_way").metadata["negation_depth"]
            for seed in range(6)} == {2}
    assert generate_task("double_negation", "hard", 1, negations=4).metadata["negation_depth"] == 4


def test_one_negation_rules_the_named_candidate_out_in_words_and_working():
    task = generate_task("double_negation", "easy", 3, template="numbers", negations=1)
    named, other = task.metadata["named"], next(c for c in task.metadata["candidates"] if c != task.metadata["named"])
    assert f". The answer is not {named}." in task.prompt and task.answer == other
    assert worked_solution(task).splitlines()[0] == f"1 negation: the answer is not {named}, so it is {other}."
    assert task.metadata["params"]["negations"] == 1


def test_the_count_does_not_change_the_candidates_of_a_seed():
    one, two = (generate_task("double_negation", "medium", 5, negations=n) for n in (2, 3))
    assert one.metadata["candidates"] == two.metadata["candidates"] and one.answer != two.answer


def test_an_odd_count_with_three_candidates_is_refused():
    with pytest.raises(ValueError, match="more than one"):
        generate_task("double_negation", "medium", 0, template="three_way", negations=3)
    with pytest.raises(ValueError, match="negations"):
        generate_task("double_negation", "easy", 0, negations=5)
