"""Redrawing one-outcome batches: DAPO's dynamic sampling, by correctness.

A GRPO group whose completions are all right or all wrong carries no correctness signal (the format
bonus may still tell its rewards apart). With ``TrainConfig.redraw_uniform = N``, a step whose groups all
came out that way is not trained on: fresh prompts are drawn from the same feed and generated again, up
to N times, and the step trains on the last batch drawn. Every drawn batch is judged and observed as
usual, so the co-evolving feed and the curriculum learn from the dropped groups too, and the step's
``frac_outcome_uniform``, ``accuracy`` and the other group metrics average over every batch generated,
dropped or not. Each step logs ``redraws`` (how many batches it dropped) and ``uniform_trained`` (1 when
the batch it trained on still had one outcome everywhere: the redraws ran out). Each redraw costs one more
generation, which is the price to weigh against the steps it saves.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from alice_app.training.rewards import GroupResult, one_outcome

REDRAW_METRICS = ("redraws", "uniform_trained")


class OutcomeWatch:
    """A group observer that keeps the groups of the latest judged batch."""

    def __init__(self) -> None:
        self.last: list[GroupResult] = []

    def observe(self, groups: Sequence[GroupResult]) -> None:
        self.last = list(groups)

    @property
    def uniform(self) -> bool:
        """Whether every group of the latest batch had one outcome."""
        return bool(self.last) and all(one_outcome(group) for group in self.last)


def fresh_batch(draw_row: Callable[[], dict[str, Any]], prompts: int, group_size: int) -> list[dict[str, Any]]:
    """``prompts`` new rows, each repeated ``group_size`` times in a row: the layout TRL's samplers give a
    generation batch (consecutive completions of one prompt form a group)."""
    return [row for _ in range(prompts) for row in [draw_row()] * group_size]


def redrawing_trainer_class(base: type, draw_row: Callable[[], dict[str, Any]], watch: OutcomeWatch,
                            limit: int) -> type:
    """``base`` (TRL's GRPOTrainer) redrawing a training batch whose groups all had one outcome, up to
    ``limit`` times; ``watch`` must observe the reward function's groups and ``draw_row`` yields the
    feed's next row."""

    class RedrawingGRPOTrainer(base):
        def _generate_and_score_completions(self, inputs):
            batch = super()._generate_and_score_completions(inputs)
            if not self.model.training:
                return batch
            redraws = 0
            while redraws < limit and watch.uniform:
                inputs = fresh_batch(draw_row, len(inputs) // self.num_generations, self.num_generations)
                batch = super()._generate_and_score_completions(inputs)
                redraws += 1
            self._metrics["train"]["redraws"].append(float(redraws))
            self._metrics["train"]["uniform_trained"].append(float(watch.uniform))
            return batch

    return RedrawingGRPOTrainer
