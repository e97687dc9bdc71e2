"""Redrawing one-outcome batches (DAPO's dynamic sampling): when a batch is redrawn, what replaces it and what is
logged (fast, with a scripted stand-in for TRL's generation; the real GRPO run is in test_training_slow.py)."""
from collections import defaultdict
from types import SimpleNamespace

import pytest

from alice_app.tasks.registry import generate_task
from alice_app.training.config import TrainConfig
from alice_app.training.grpo import row_drawer
from alice_app.training.redraw import OutcomeWatch, fresh_batch, redrawing_trainer_class


@pytest.fixture
def groups(judged_group):
    """One-outcome and mixed groups of two completions."""
    task = generate_task("negation_arithmetic", "easy", 7)
    return {"solved": judged_group(task, [task.answer] * 2), "failed": judged_group(task, ["99999"] * 2),
            "mixed": judged_group(task, [task.answer, "99999"])}


def test_a_batch_is_uniform_only_when_every_group_has_one_outcome(groups):
    watch = OutcomeWatch()
    assert not watch.uniform  # nothing judged yet
    watch.observe([groups["solved"], groups["failed"]])
    assert watch.uniform
    watch.observe([groups["solved"], groups["mixed"]])
    assert not watch.uniform


def test_a_fresh_batch_repeats_each_new_prompt_for_its_whole_group():
    drawn = iter(["a", "b", "c"])
    batch = fresh_batch(lambda: {"prompt": next(drawn)}, prompts=2, group_size=3)
    assert [row["prompt"] for row in batch] == ["a", "a", "a", "b", "b", "b"]


class ScriptedTrainer:
    """Stands in for TRL's GRPOTrainer: each generation 'judges' its batch as the next scripted outcome."""

    def __init__(self, watch, outcomes, groups, training=True):
        self.watch, self.outcomes, self.groups = watch, iter(outcomes), groups
        self.num_generations = 2
        self.model = SimpleNamespace(training=training)
        self._metrics = {"train": defaultdict(list), "eval": defaultdict(list)}
        self.generated = []

    def _generate_and_score_completions(self, inputs):
        self.generated.append([row["prompt"] for row in inputs])
        self.watch.observe([self.groups[next(self.outcomes)]])
        return {"batch": len(self.generated)}


def _trainer(outcomes, groups, limit, training=True):
    watch = OutcomeWatch()
    prompts = iter(f"fresh {i}" for i in range(1, 10))
    cls = redrawing_trainer_class(ScriptedTrainer, lambda: {"prompt": next(prompts)}, watch, limit)
    return cls(watch, outcomes, groups, training)


def test_a_uniform_batch_is_redrawn_until_a_mixed_one_comes(groups):
    trainer = _trainer(["failed", "solved", "mixed", "mixed"], groups, limit=3)
    kept = trainer._generate_and_score_completions([{"prompt": "first"}] * 2)
    assert kept == {"batch": 3}  # the step trains on the mixed batch, the third drawn
    assert trainer.generated == [["first"] * 2, ["fresh 1"] * 2, ["fresh 2"] * 2]
    assert trainer._metrics["train"]["redraws"] == [2.0] and trainer._metrics["train"]["uniform_trained"] == [0.0]


def test_the_redraws_run_out_and_the_step_trains_on_the_last_uniform_batch(groups):
    trainer = _trainer(["failed", "failed", "solved"], groups, limit=2)
    assert trainer._generate_and_score_completions([{"prompt": "first"}] * 2) == {"batch": 3}
    assert trainer._metrics["train"]["redraws"] == [2.0] and trainer._metrics["train"]["uniform_trained"] == [1.0]


def test_a_mixed_first_batch_and_evaluation_are_never_redrawn(groups):
    trainer = _trainer(["mixed"], groups, limit=2)
    assert trainer._generate_and_score_completions([{"prompt": "first"}] * 2) == {"batch": 1}
    assert trainer._metrics["train"]["redraws"] == [0.0]
    evaluating = _trainer(["failed"], groups, limit=2, training=False)
    evaluating._generate_and_score_completions([{"prompt": "first"}] * 2)
    assert evaluating.generated == [["first"] * 2] and not evaluating._metrics["train"]


def test_a_static_dataset_is_redrawn_from_seeded_random_rows_and_a_feed_from_its_next_rows():
    from datasets import Dataset

    dataset = Dataset.from_list([{"prompt": str(i)} for i in range(50)])
    first, again = row_drawer(dataset, None, seed=3), row_drawer(dataset, None, seed=3)
    rows = [first()["prompt"] for _ in range(6)]
    assert rows == [again()["prompt"] for _ in range(6)] and len(set(rows)) > 1
    feed = SimpleNamespace(rows=lambda: iter([{"prompt": "next"}, {"prompt": "after"}]))
    draw = row_drawer(dataset, feed, seed=3)
    assert [draw()["prompt"], draw()["prompt"]] == ["next", "after"]


def test_the_redraw_limit_is_bounded():
    assert TrainConfig(redraw_uniform=16).validate().redraw_uniform == 16
    with pytest.raises(ValueError, match="redraw_uniform must be between 0 and 16"):
        TrainConfig(redraw_uniform=17).validate()
