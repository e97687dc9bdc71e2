"""The tokens every row of a training batch begins with, run through the model once.

Every warm-start example and every GRPO completion starts with the same system prompt, and the eight completions
of one GRPO prompt share the whole prompt: a third of a warm-start batch's positions and most of a GRPO group's
are the same tokens in every row. ``prefix_cache`` runs them once (one row) and repeats their keys and values
for each row; the rest of the batch then attends to that cache. The loss and its gradients are the same as with
every row computed whole, to float rounding (``tests/training/test_shared_prefix.py``, ``bench/fine_tuning.py``),
since the repeated keys and values stay in the autograd graph: the gradients of all rows flow back through the one
prefix pass.

``completion_loss`` (the warm start) uses it directly; ``sharing_prefix_trainer_class`` gives TRL's GRPOTrainer
a log-prob pass (``_get_per_token_logps_and_entropies``) that calls the model through ``SharedPrefixCalls``.
"""
from __future__ import annotations

from typing import Any

MULTIMODAL_INPUTS = ("pixel_values", "image_grid_thw", "num_images", "pixel_attention_mask", "spatial_shapes",
                     "num_tiles", "image_sizes", "token_type_ids", "mm_token_type_ids", "image_position_ids")


def shared_prefix_length(input_ids: Any, labels: Any, attention_mask: Any = None, keep: int = 0) -> int:
    """How many tokens every row of ``input_ids`` (and of ``attention_mask``, when given) begins with, stopping
    short of the first position whose next token is scored (``labels`` not -100) in any row, and leaving at
    least ``keep`` + 1 positions after it; 0 for a single row."""
    if len(input_ids) < 2:
        return 0
    same = (input_ids == input_ids[:1]).all(dim=0)
    if attention_mask is not None:
        same &= (attention_mask == attention_mask[:1]).all(dim=0)
    common = int(same.long().cumprod(dim=0).sum())
    first_label = int((labels != -100).long().argmax(dim=1).min())
    return max(0, min(common, first_label - 1, input_ids.shape[1] - 1 - keep))


def prefix_cache(model: Any, input_ids: Any, attention_mask: Any, prefix: int) -> Any:
    """A ``DynamicCache`` holding the keys and values of the first ``prefix`` tokens, computed once from the first
    row and repeated for every row of ``input_ids`` (differentiable: the rows' gradients reach the one pass)."""
    from transformers import DynamicCache

    cache = DynamicCache(config=model.config)
    model(input_ids=input_ids[:1, :prefix], attention_mask=attention_mask[:1, :prefix], cache=cache, use_cache=True,
          logits_to_keep=1)
    cache.batch_repeat_interleave(len(input_ids))
    return cache


class SharedPrefixCalls:
    """Stands for ``model`` where TRL calls it with a batch and its ``labels`` (the GRPO log-prob pass): the
    prefix the rows share goes through ``prefix_cache``, the rest through the model with that cache. The
    per-position outputs (log-probs, entropies) then start after the prefix; at least the last ``keep`` + 1
    positions, all TRL reads, are computed."""

    def __init__(self, model: Any, keep: int):
        self.model, self.keep = model, keep

    def __call__(self, *, input_ids: Any, attention_mask: Any, labels: Any, **kwargs: Any) -> Any:
        prefix = shared_prefix_length(input_ids, labels, attention_mask, self.keep)
        if not prefix:
            return self.model(input_ids=input_ids, attention_mask=attention_mask, labels=labels, **kwargs)
        return self.model(input_ids=input_ids[:, prefix:], attention_mask=attention_mask, labels=labels[:, prefix:],
                          cache=prefix_cache(self.model, input_ids, attention_mask, prefix), **kwargs)


def sharing_prefix_trainer_class(base: type) -> type:
    """``base`` (TRL's GRPOTrainer or a subclass) whose log-prob pass runs each batch's shared prefix once, for
    text batches; a multimodal batch goes through ``base`` unchanged."""

    class SharingPrefixTrainer(base):
        def _get_per_token_logps_and_entropies(self, model, input_ids, attention_mask, logits_to_keep, *args,
                                               **kwargs):
            if not args and all(kwargs.get(name) is None for name in MULTIMODAL_INPUTS):
                model = SharedPrefixCalls(model, logits_to_keep)
            return super()._get_per_token_logps_and_entropies(model, input_ids, attention_mask, logits_to_keep,
                                                               *args, **kwargs)

    return SharingPrefixTrainer
