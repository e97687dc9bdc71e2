"""The tokens every row of a training batch begins with, run through the model once.

Every warm-start example and every GRPO completion starts with the same system prompt, and the eight completions
of one GRPO prompt share the whole prompt: a third of a warm-start batch's positions and most of a GRPO group's
are the same tokens in every row. ``prefix_cache`` runs them once (one row) and repeats their keys and values
for each row; the rest of the batch then attends to that cache. The loss and its gradients are the same as with
every row computed whole, to float rounding (``tests/training/test_shared_prefix.py``, ``bench/fine_tuning.py``),
since the repeated keys and values stay in the autograd graph: the gradients of all rows flow back through the one
prefix pass. Generation gains the same way: a GRPO group's eight copies of one prompt are prefilled once
(``generate_sharing_prompt``), and the sampled tokens are those of the plain call but where float rounding of the
prompt's keys tips a sample (one group in eight in ``bench/grpo_generation.py``, none in the learning bench's runs).

``completion_loss`` (the warm start) uses it directly; ``sharing_prefix_trainer_class`` gives TRL's GRPOTrainer
a log-prob pass (``_get_per_token_logps_and_entropies``) that calls the model through ``SharedPrefixCalls``, and
a generation (``_generate_single_turn``) whose ``generate`` calls go through ``generate_sharing_prompt``.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
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
    common = _leading_true(same)
    first_label = int((labels != -100).long().argmax(dim=1).min())
    return max(0, min(common, first_label - 1, input_ids.shape[1] - 1 - keep))


def shared_prompt_length(input_ids: Any, attention_mask: Any) -> int:
    """How many tokens every row of a generation batch begins with, unpadded (attention mask 1 in every row), short
    of the last column (``generate`` must run at least one token itself); 0 for a single row."""
    if len(input_ids) < 2:
        return 0
    return min(_leading_true((input_ids == input_ids[:1]).all(dim=0) & (attention_mask == 1).all(dim=0)),
               input_ids.shape[1] - 1)


def _leading_true(flags: Any) -> int:
    """The number of true entries a 1-d boolean tensor begins with."""
    return int(flags.long().cumprod(dim=0).sum())


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


def generate_sharing_prompt(generate: Callable[..., Any], model: Any, *, input_ids: Any, attention_mask: Any,
                            generation_config: Any = None, **kwargs: Any) -> Any:
    """``generate(input_ids=..., attention_mask=..., ...)`` with the tokens all rows begin with (a GRPO group's
    copies of one prompt) prefilled once by ``model`` and handed to it as the cache, when it takes one: a
    batch without such tokens, with a cache of its own or other inputs (images), or a generation config that
    builds its own cache or uses none, goes to ``generate`` as it came. The same tokens come back, unless the
    float rounding of the prompt's keys and values tips a sample."""
    import torch

    config = generation_config or model.generation_config
    prefix = 0 if kwargs or config.cache_implementation is not None or config.use_cache is False \
        else shared_prompt_length(input_ids, attention_mask)
    if prefix:
        with torch.no_grad():
            kwargs["cache"] = prefix_cache(model, input_ids, attention_mask, prefix)
    return generate(input_ids=input_ids, attention_mask=attention_mask, generation_config=generation_config,
                    **kwargs)


@contextmanager
def generating_with_shared_prompt(model: Any) -> Iterator[None]:
    """Within the block, ``model.generate`` goes through ``generate_sharing_prompt`` (TRL calls the model's
    ``generate`` directly, with no hook of its own)."""
    own = vars(model).get("generate")
    model.generate = partial(generate_sharing_prompt, model.generate, model)
    try:
        yield
    finally:
        if own is None:
            del model.generate
        else:
            model.generate = own


def sharing_prefix_trainer_class(base: type) -> type:
    """``base`` (TRL's GRPOTrainer or a subclass) whose log-prob pass runs each batch's shared prefix once, and
    whose transformers generation prefills each group's shared prompt once, for text batches; a multimodal
    batch, vLLM and continuous batching go through ``base`` unchanged."""

    class SharingPrefixTrainer(base):
        def _generate_single_turn(self, prompt_ids, images, multimodal_fields, *args, **kwargs):
            if self.use_vllm or self.use_transformers_continuous_batching or images is not None or multimodal_fields:
                return super()._generate_single_turn(prompt_ids, images, multimodal_fields, *args, **kwargs)
            with generating_with_shared_prompt(self.accelerator.unwrap_model(self.model_wrapped)):
                return super()._generate_single_turn(prompt_ids, images, multimodal_fields, *args, **kwargs)

        def _get_per_token_logps_and_entropies(self, model, input_ids, attention_mask, logits_to_keep, *args,
                                               **kwargs):
            if not args and all(kwargs.get(name) is None for name in MULTIMODAL_INPUTS):
                model = SharedPrefixCalls(model, logits_to_keep)
            return super()._get_per_token_logps_and_entropies(model, input_ids, attention_mask, logits_to_keep,
                                                               *args, **kwargs)

    return SharingPrefixTrainer
