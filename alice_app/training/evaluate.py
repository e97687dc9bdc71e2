"""Before/after evaluation of the model being trained, on held-out seeds (``alice_app.evaluation``).

The model is wrapped in a ``LocalPolicy`` for the duration and put in eval mode, then handed back
in the mode it was in: the same weights (LoRA included) serve training and evaluation.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator, Sequence

from alice_app.training.config import TrainConfig


def evaluate_model(model: Any, tokenizer: Any, settings: Any, config: TrainConfig,
                   families: Sequence[str], n_per_cell: int | None = None) -> dict:
    """``{"family": {"level": accuracy}, ...}``, with a row per control twin (``evaluation.with_twins``)
    so the stored evaluation also gives the distraction penalty."""
    from alice_app.evaluation import evaluate_report, with_twins

    with eval_policy(model, tokenizer, settings) as policy:
        return with_twins(evaluate_report(policy, list(families), n_per_cell=n_per_cell or config.eval_n_per_cell,
                                          max_tokens=config.eval_max_tokens))


@contextmanager
def eval_policy(model: Any, tokenizer: Any, settings: Any, batch_size: int = 16) -> Iterator[Any]:
    """The model being trained as a ``LocalPolicy`` in eval mode, keeping the prompts it is asked
    (``LocalPolicy.keeping_prompts``: the weights stay as they are inside); handed back in the mode it was in."""
    from alice_app.models.local import LocalPolicy

    was_training = model.training
    model.eval()
    try:
        policy = LocalPolicy(model, tokenizer, model_id=settings.model_name, batch_size=batch_size)
        with policy.keeping_prompts():
            yield policy
    finally:
        model.train(was_training)
