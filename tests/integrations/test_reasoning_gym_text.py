"""reasoning-gym beyond numbers: prompt, extraction, feedback, failure label and format reward for
text answers, on four real reasoning-gym datasets; and levels with overlapping ranges."""
from __future__ import annotations

import pytest

from alice_app.failure_modes import label_failure
from alice_app.reward import compute_reward
from alice_app.tasks.reasoning_gym import ReasoningGymConfig, register_dataset
from alice_app.tasks.registry import generate_task
from alice_app.verify.oracle import NoOracle
from alice_app.verify.stack import VerifierStack

SAME = {"easy": {}, "medium": {}, "hard": {}}  # three levels with identical (fully overlapping) ranges
DATASETS = ("chain_sum", "propositional_logic", "word_ladder", "letter_counting")


@pytest.fixture(scope="module")
def verifier():
    from alice_app.tasks import registry

    for name in DATASETS:
        register_dataset(f"rgt_{name}", ReasoningGymConfig(dataset=name, levels=SAME), f"test {name}")
    yield VerifierStack(NoOracle())
    for name in DATASETS:  # the registry is process-wide: leave it as the other tests expect it
        registry._FAMILIES.pop(f"rgt_{name}", None)


def judge(verifier, task, response):
    verdict = verifier.verify(task, response)
    return verdict, label_failure(task, verdict), compute_reward(verdict, 1, response, [])


@pytest.mark.parametrize("name,kind", [("chain_sum", "number"), ("letter_counting", "number"),
                                       ("word_ladder", "text"), ("propositional_logic", "text")])
def test_prompt_asks_for_the_kind_of_answer_the_dataset_has(verifier, name, kind):
    task = generate_task(f"rgt_{name}", "easy", 3)
    assert task.metadata["answer_kind"] == kind
    assert task.prompt.endswith("Answer: <number>\".") == (kind == "number")
    assert task.prompt.endswith("Answer: <answer>\".") == (kind == "text")


@pytest.mark.parametrize("name", ["chain_sum", "letter_counting", "word_ladder"])
def test_the_reference_answer_is_accepted_with_and_without_the_answer_line(verifier, name):
    task = generate_task(f"rgt_{name}", "easy", 5)
    for response in (f"Let me think.\nAnswer: {task.answer}", task.answer):
        verdict, _, reward = judge(verifier, task, response)
        assert verdict.is_correct and verdict.extracted == task.answer, (response, verdict)
        assert reward.components["correctness"] == 1.0


def test_a_wrong_text_answer_is_read_labelled_and_earns_the_format_bonus(verifier):
    task = generate_task("rgt_word_ladder", "easy", 5)
    verdict, mode, reward = judge(verifier, task, "I change one letter each time.\nAnswer: CAT,DOG")
    assert not verdict.is_correct and verdict.extracted == "CAT,DOG"
    assert "CAT,DOG" in verdict.feedback and "could not find" not in verdict.feedback
    assert mode != "format" and reward.components["format"] == 0.1


def test_a_text_task_without_an_answer_is_a_format_failure_asking_for_an_answer_not_a_number(verifier):
    task = generate_task("rgt_word_ladder", "easy", 5)
    verdict, mode, reward = judge(verifier, task, "Answer:")
    assert not verdict.is_correct and verdict.extracted is None and mode == "format"
    assert "Answer: <answer>" in verdict.feedback and reward.components["format"] == 0.0


def test_a_number_task_keeps_number_feedback_and_gives_no_bonus_to_an_unreadable_answer_line(verifier):
    task = generate_task("rgt_chain_sum", "easy", 5)
    verdict, mode, reward = judge(verifier, task, "Answer: banana")
    assert mode == "format" and "Answer: <number>" in verdict.feedback and reward.components["format"] == 0.0


def test_propositional_logic_has_no_fake_reference_answer(verifier):
    task = generate_task("rgt_propositional_logic", "easy", 2)
    assert task.answer == "" and task.answer != "None"
    verdict, mode, _ = judge(verifier, task, "Answer: None")
    assert not verdict.is_correct and mode == "other"


@pytest.mark.parametrize("name", DATASETS)
def test_overlapping_levels_do_not_give_the_same_task_at_every_level(verifier, name):
    for seed in range(3):
        prompts = {generate_task(f"rgt_{name}", level, seed).prompt for level in ("easy", "medium", "hard")}
        assert len(prompts) > 1, f"{name} seed {seed}: the same task at every level"


def test_a_task_banked_before_dataset_seed_is_rescored_against_its_own_entry(verifier):
    import reasoning_gym

    task = generate_task("rgt_chain_sum", "medium", 4)
    assert task.metadata["dataset_seed"] != task.seed
    old_entry = reasoning_gym.create_dataset("chain_sum", size=1, seed=task.seed)[0]  # the old derivation
    metadata = {k: v for k, v in task.metadata.items() if k != "dataset_seed"}
    legacy = type(task).from_dict({**task.to_dict(), "answer": str(old_entry["answer"]), "metadata": metadata})
    assert verifier.verify(legacy, f"Answer: {old_entry['answer']}").is_correct


def test_the_last_turn_of_a_text_task_asks_for_an_answer_not_a_number(verifier):
    from alice_app.episode import FINAL_PROMPT, FINAL_TEXT_PROMPT, advance, new_episode

    for name, expected in (("word_ladder", FINAL_TEXT_PROMPT), ("chain_sum", FINAL_PROMPT)):
        task = generate_task(f"rgt_{name}", "easy", 5)
        episode = new_episode(task)
        for _ in range(4):
            episode = advance(episode, "Answer: CAT", verifier.verify(task, "Answer: CAT"))
        assert episode.next_prompt() == expected
