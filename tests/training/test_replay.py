"""Worked replay: which tasks a step hands over and what is logged (fast; the real fine-tuning inside a GRPO
run on the embedded model is in test_training_slow.py)."""
from types import SimpleNamespace

from alice_app.tasks.registry import generate_task
from alice_app.training.replay import WorkedReplay, chain_observers, failed_tasks
from alice_app.training.warm_start import worked_examples


def test_a_group_with_any_wrong_completion_hands_its_task_over_once(judged_group):
    solved, mixed, failed = (generate_task("negation_arithmetic", "easy", seed) for seed in (1, 2, 3))
    groups = [judged_group(solved, [solved.answer] * 2), judged_group(mixed, [mixed.answer, "99999"]),
              judged_group(failed, ["99999"] * 2), judged_group(failed, ["99999"] * 2)]
    assert [t.id for t in failed_tasks(groups)] == [mixed.id, failed.id]


def test_the_step_end_teaches_every_wording_of_the_failed_tasks_and_logs_the_count(judged_group):
    task = generate_task("false_claim", "medium", 4)
    replay = WorkedReplay(tokenizer=None, learning_rate=1e-4)
    replay.observe([judged_group(task, ["99999"] * 4)])
    control = SimpleNamespace()
    assert replay.on_step_end(None, None, control, model=None) is control  # no model: counted, nothing trained
    assert replay.taught_last_step == len(worked_examples([task])) >= 2 and replay.pending == []
    step_line, summary = {"loss": 0.1}, {"train_runtime": 3.0}
    replay.on_log(None, None, control, logs=step_line)
    replay.on_log(None, None, control, logs=summary)
    assert step_line["worked_replay"] == replay.taught_last_step and "worked_replay" not in summary
    replay.on_step_end(None, None, control, model=None)  # a step whose groups were all solved
    assert replay.taught_last_step == 0


def test_chained_observers_each_see_every_group_and_none_chains_to_none():
    seen_a, seen_b = [], []
    observe = chain_observers(seen_a.extend, None, seen_b.extend)
    observe(["g1", "g2"])
    assert seen_a == seen_b == ["g1", "g2"]
    assert chain_observers(None, None) is None


def test_unsolved_only_hands_over_just_the_groups_without_a_correct_completion(judged_group):
    mixed, failed = (generate_task("negation_arithmetic", "easy", seed) for seed in (2, 3))
    groups = [judged_group(mixed, [mixed.answer, "99999"]), judged_group(failed, ["99999"] * 2)]
    assert [t.id for t in failed_tasks(groups, unsolved_only=True)] == [failed.id]
    replay = WorkedReplay(tokenizer=None, learning_rate=1e-4, unsolved_only=True)
    replay.observe(groups)
    assert [t.id for t in replay.pending] == [failed.id]
