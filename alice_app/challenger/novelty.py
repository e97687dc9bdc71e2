"""Novelty of a wording: BLEU similarity to known templates, and R-Zero's repetition penalty.

Templates are compared as word sequences with every slot replaced by one token, so "{a} + {b}"
and "{b} + {a}" read the same and numbers never make two wordings look different. A proposal
whose BLEU against some known template reaches ``NEAR_DUPLICATE`` is rejected; within a batch of
proposals, near-identical ones (BLEU >= ``CLUSTER_SIMILARITY``) form clusters and each member pays
``REPETITION_WEIGHT × cluster size / batch size`` (as in R-Zero), so a challenger that repeats
itself earns less than one that spreads out.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from typing import Sequence

NEAR_DUPLICATE = 0.6
CLUSTER_SIMILARITY = 0.5
REPETITION_WEIGHT = 0.5
MAX_N = 4

_TOKEN = re.compile(r"\{[^{}]*\}|[a-z]+|[^\sa-z]", re.IGNORECASE)


def tokens(template: str) -> list[str]:
    return ["<slot>" if t.startswith("{") else t.lower() for t in _TOKEN.findall(template)]


def bleu(candidate: Sequence[str], reference: Sequence[str]) -> float:
    """Sentence BLEU (1..4-grams, add-one smoothing above unigrams, brevity penalty), 0..1."""
    if not candidate or not reference:
        return 0.0
    log_sum = 0.0
    for n in range(1, MAX_N + 1):
        cand, ref = _ngrams(candidate, n), _ngrams(reference, n)
        overlap = sum(min(count, ref[gram]) for gram, count in cand.items())
        total = sum(cand.values())
        smooth = 0 if n == 1 else 1
        if overlap + smooth == 0 or total + smooth == 0:
            return 0.0
        log_sum += math.log((overlap + smooth) / (total + smooth)) / MAX_N
    brevity = min(1.0, math.exp(1 - len(reference) / len(candidate)))
    return brevity * math.exp(log_sum)


def similarity(a: str, b: str) -> float:
    """Symmetric similarity of two templates: the larger BLEU of either against the other."""
    ta, tb = tokens(a), tokens(b)
    return max(bleu(ta, tb), bleu(tb, ta))


def nearest(template: str, known: Sequence[str]) -> tuple[float, str | None]:
    """(highest similarity, that template) over ``known``; (0, None) when nothing is known."""
    best, match = 0.0, None
    for other in known:
        score = similarity(template, other)
        if score > best:
            best, match = score, other
    return best, match


def repetition_penalties(templates: Sequence[str | None]) -> list[float]:
    """R-Zero's penalty per batch member: weight × (its cluster's size / batch size); None = invalid
    (not clustered, penalty 0)."""
    indices = [i for i, t in enumerate(templates) if t is not None]
    parent = {i: i for i in indices}

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for x, i in enumerate(indices):
        for j in indices[x + 1:]:
            if similarity(templates[i], templates[j]) >= CLUSTER_SIMILARITY:
                parent[root(i)] = root(j)
    sizes = Counter(root(i) for i in indices)
    batch = max(len(templates), 1)
    return [REPETITION_WEIGHT * sizes[root(i)] / batch if i in parent else 0.0 for i in range(len(templates))]


def _ngrams(words: Sequence[str], n: int) -> Counter:
    return Counter(tuple(words[i:i + n]) for i in range(len(words) - n + 1))
