from statistics import mean

import pytest

from alice_app.tasks import generate_task
from alice_app.tasks.negation_arithmetic import FORMS, LEVEL_TABLE, TEMPLATES

FAMILY = "negation_arithmetic"


def test_nine_templates_three_drawn_per_level_any_usable_at_any_level():
    assert len(set(TEMPLATES)) >= 9
    assert all(len(level["template"]) >= 3 and set(level["template"]) <= set(TEMPLATES)
               for level in LEVEL_TABLE.values())
    assert generate_task(FAMILY, "easy", 0, template="paren_mul", operands=(2, 3, 4)).answer == "20"


def test_fixed_operands_give_the_exact_sum_and_a_not_clause():
    task = generate_task(FAMILY, "easy", 1, template="add", operands=(3, 4))
    assert task.answer == "7"
    assert "what is 3 + 4?" in task.prompt
    assert "NOT" in task.prompt or "not" in task.prompt
    assert task.metadata["operands"] == [3, 4] and task.metadata["negated"] is True


@pytest.mark.parametrize("template,operands,answer", [
    ("sub", (9, 2), "7"), ("sum_words", (5, 6), "11"),
])
def test_easy_templates(template, operands, answer):
    assert generate_task(FAMILY, "easy", 0, template=template, operands=operands).answer == answer


@pytest.mark.parametrize("template,operands,answer", [
    ("paren_mul", (2, 3, 4), "20"), ("mixed", (2, 3, 4), "14"), ("paren_sub", (2, 3, 7), "-8"),
])
def test_hard_templates_respect_precedence_and_give_negative_answers(template, operands, answer):
    assert generate_task(FAMILY, "hard", 0, template=template, operands=operands).answer == answer


@pytest.mark.parametrize("count", [1, 2, 3])
def test_the_not_clause_names_every_distractor(count):
    task = generate_task(FAMILY, "medium", 5, distractors=count)
    distractors = task.metadata["distractors"]
    assert len(set(distractors)) == count
    assert all(str(d) in task.prompt for d in distractors)
    assert task.answer not in map(str, distractors)


def test_distractors_are_tempting_wrong_results():
    task = generate_task(FAMILY, "easy", 3, template="add", operands=(3, 4), distractors=3)
    tempting = {3 - 4, 3 * 4, 8, 6, 14, 17, 9, 5, -3}  # wrong operator, off by one/two, double, +-10
    assert set(task.metadata["distractors"]) <= tempting


def test_clause_position_and_negation_form_change_the_wording():
    start = generate_task(FAMILY, "medium", 2, clause_position="start", negation_form="caps")
    end = generate_task(FAMILY, "medium", 2, clause_position="end", negation_form="contraction")
    assert start.prompt.startswith("If the result is NOT")
    assert end.prompt.startswith("What is") and "isn't" in end.prompt
    assert start.answer == end.answer  # same numbers: only the wording moved
    assert set(FORMS) >= {"caps", "lower", "contraction"}


def test_deception_grows_with_level_while_arithmetic_stays_small():
    def size(level):
        return max(max(map(abs, generate_task(FAMILY, level, s).metadata["operands"])) for s in range(200))

    def clutter(level):
        return mean(len(generate_task(FAMILY, level, s).metadata["distractors"]) for s in range(200))

    def after(level):
        return mean(generate_task(FAMILY, level, s).metadata["params"]["clause_position"] == "end" for s in range(200))

    assert size("easy") == size("medium") == size("hard") == 9
    assert clutter("easy") < clutter("medium") < clutter("hard")
    assert after("easy") < after("medium") < after("hard")
    assert max(generate_task(FAMILY, "medium", s, operand_digits=2).metadata["operands"][0] for s in range(50)) > 9
