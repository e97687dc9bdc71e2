import pytest
import reasoning_gym

from alice_app.tasks import generate_task, get_family
from alice_app.tasks.reasoning_gym import BASIC_ARITHMETIC_LEVELS, dataset_seed, final_answer_text

FAMILY = "rg_basic_arithmetic"


def test_task_is_the_datasets_own_item():
    task = generate_task(FAMILY, "medium", 42)
    entry = reasoning_gym.create_dataset("basic_arithmetic", size=1, seed=dataset_seed(42, "medium"),
                                         **BASIC_ARITHMETIC_LEVELS["medium"])[0]
    assert task.prompt.startswith(entry["question"]) and task.answer == entry["answer"]
    assert task.metadata["source_dataset"] == "basic_arithmetic"


def test_scored_by_the_datasets_score_answer():
    family = get_family(FAMILY)
    task = generate_task(FAMILY, "hard", 3)
    assert family.scorer(task, f"Let me think.\n**Answer: {task.answer}.**") == 1.0
    assert family.scorer(task, f"Answer: {int(task.answer) + 1}") == 0.0
    assert family.scorer(task, "") == 0.0


def test_levels_grow_in_size():
    def terms(level):
        return sum(generate_task(FAMILY, level, s).metadata["entry"]["metadata"]["num_terms"] for s in range(50))

    assert terms("easy") < terms("medium") < terms("hard")


@pytest.mark.parametrize("response,expected", [
    ("Answer: 7", "7"), ("so\nanswer: -3.\nthanks", "-3"), ("7", "7"), ("x\n\n**12**\n", "12"), ("", ""),
    ("Answer: 1\nAnswer: 2", "2"),
])
def test_final_answer_text(response, expected):
    assert final_answer_text(response) == expected
