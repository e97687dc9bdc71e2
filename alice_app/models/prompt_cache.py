"""Keys and values of the prompts a local model was asked, kept so that a prompt beginning with one of them is
prefilled only from where they part.

An episode's turn k+1 is its turn k prompt with the reply and the next user message appended, and every chat of a
hunt begins with the same system prompt; ``generate`` would prefill each whole prompt again, left-padded to the
longest of its batch. ``PromptCache.batch_cache`` instead runs each row on its own, unpadded, from the longest
token prefix it shares with a kept prompt, keeps the row's keys and values for the next call, and hands
``generate`` one left-padded cache of every row but its last token. The model sees the same tokens at the same
positions; only float rounding differs from the padded batch pass (``bench/kept_prompts.py`` counts the replies that
change).

The weights must not change while a cache is in use: ``LocalPolicy.keeping_prompts`` opens one for a block (a hunt,
an evaluation) and drops it after. Models whose cache is not plain per-layer keys and values (sliding windows,
recurrent states) are not served: ``supports`` says so and the policy then generates as before.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any

DEFAULT_BUDGET_BYTES = 1 << 30  # kept keys and values beyond this are dropped, least recently used first

Layers = list  # [(keys, values)] per layer, each [1, heads, tokens, head_dim]


def supports(model: Any) -> bool:
    """Whether ``model``'s cache is one plain key/value layer per decoder layer (what this module can splice)."""
    from transformers import DynamicCache
    from transformers.cache_utils import DynamicLayer

    try:
        layers = DynamicCache(config=model.config).layers
    except Exception:  # a config transformers cannot read layer types from
        return False
    return bool(layers) and all(type(layer) is DynamicLayer for layer in layers)


def common_prefix_length(a: tuple, b: tuple) -> int:
    """How many leading entries ``a`` and ``b`` share (binary search over C-level slice comparisons)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


class PromptCache:
    """The kept prompts of one model (token ids -> their keys and values), within ``budget_bytes``."""

    def __init__(self, model: Any, budget_bytes: int = DEFAULT_BUDGET_BYTES):
        if budget_bytes < 0:
            raise ValueError(f"the prompt cache's budget must be >= 0 bytes, not {budget_bytes}")
        self.model = model
        self.budget_bytes = budget_bytes
        self.entries: OrderedDict[tuple, Layers] = OrderedDict()
        self.reused_tokens = 0  # prompt tokens served from kept keys and values, not prefilled
        self.prefilled_tokens = 0  # prompt tokens run through the model here

    def batch_cache(self, input_ids: Any, attention_mask: Any) -> Any:
        """A ``DynamicCache`` of every column of the left-padded batch but the last (padding as zeros, masked), for
        ``generate(input_ids, attention_mask, cache=...)``; None when there is no such column."""
        from transformers import DynamicCache

        width = input_ids.shape[1] - 1
        if width < 1:
            return None
        rows = [self._row(tuple(ids[mask.bool()].tolist())[:-1]) for ids, mask in zip(input_ids, attention_mask)]
        shape = next(row for row in rows if row)  # a one-token prompt has nothing to keep: zeros of this shape
        rows = [row or [(k[:, :, :0], v[:, :, :0]) for k, v in shape] for row in rows]
        layers = [tuple(_left_padded([row[layer][part] for row in rows], width) for part in (0, 1))
                  for layer in range(len(shape))]
        self._evict()
        return DynamicCache(ddp_cache_data=layers, config=self.model.config)

    @property
    def bytes(self) -> int:
        return sum(_layers_bytes(layers) for layers in self.entries.values())

    def _row(self, tokens: tuple) -> Layers | None:
        """The keys and values of ``tokens`` (one unpadded row), from the kept prompt sharing the most of them; None
        for no tokens."""
        best, shared = None, 0
        for kept in self.entries:
            length = common_prefix_length(kept, tokens)
            if length > shared:
                best, shared = kept, length
        layers = [(k[:, :, :shared], v[:, :, :shared]) for k, v in self.entries[best]] if best else None
        if best is not None and shared == len(best):
            del self.entries[best]  # the new prompt holds all of it
        if shared < len(tokens):
            layers = self._prefill(tokens[shared:], layers)
        elif layers and best in self.entries:  # a prefix of a longer kept prompt: its own copy, not a view of that one
            layers = [(k.clone(), v.clone()) for k, v in layers]
        self.reused_tokens += shared
        self.prefilled_tokens += len(tokens) - shared
        if tokens:
            self.entries[tokens] = layers
            self.entries.move_to_end(tokens)
        return layers

    def _prefill(self, tokens: tuple, layers: Layers | None) -> Layers:
        import torch
        from transformers import DynamicCache

        cache = DynamicCache(ddp_cache_data=layers or None, config=self.model.config)
        ids = torch.tensor([tokens], device=self.model.device)
        with torch.inference_mode():
            self.model(input_ids=ids, cache=cache, use_cache=True, logits_to_keep=1)
        return [(layer.keys, layer.values) for layer in cache.layers]

    def _evict(self) -> None:
        total = self.bytes
        while self.entries and total > self.budget_bytes:
            _, layers = self.entries.popitem(last=False)
            total -= _layers_bytes(layers)


def _left_padded(tensors: list, width: int) -> Any:
    """One batch of ``[1, heads, t, dim]`` tensors, each left-padded with zeros to ``width`` tokens."""
    import torch

    return torch.cat([torch.nn.functional.pad(t, (0, 0, width - t.shape[2], 0)) for t in tensors])


def _layers_bytes(layers: Layers) -> int:
    return sum(t.numel() * t.element_size() for pair in layers for t in pair)
