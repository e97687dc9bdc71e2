"""The hand-written paraphrase set (bench/data/paraphrases.jsonl): load, run, score.

Prompts in wordings no task template uses, about the same ideas (negated sums, false claims,
"not the smaller", double negation, exclusion counting, order-of-ops distractors). Never trained
on. Loading, asking and scoring are ``alice_app.prompt_sets`` (what ``python -m alice_app eval
--prompts FILE`` does with anyone's own set): shares correct, echo_distractor, prompt_number,
self_contradiction and no_answer, plus the correct share per idea.
"""
from __future__ import annotations

import re
from pathlib import Path

PATH = Path(__file__).resolve().parent / "data" / "paraphrases.jsonl"
# Stacked negations, half with an odd count and half with an even one (bench/data/build_paraphrases.py): answering
# the named candidate scores 0.5 on it, counting the negations 1.0.
PARITY_PATH = PATH.with_name("negation_parity.jsonl")
# The task family each idea paraphrases: a run trained on some families is judged on their ideas too.
IDEA_FAMILIES = {"negated_sum": "negation_arithmetic", "false_claim": "false_claim",
                 "not_the_extreme": "negated_comparison", "double_negation": "double_negation",
                 "exclusion_counting": "exclusion_counting", "order_of_ops": "distractor_order_of_ops"}


def load_paraphrases(path: Path = PATH) -> list[dict]:
    """The set, read by ``alice_app.prompt_sets`` (the same reader as ``eval --prompts``)."""
    from alice_app.prompt_sets import load_prompt_set

    return load_prompt_set(path)


def run_paraphrases(policy, max_tokens: int = 96, rows: list[dict] | None = None) -> dict:
    """Greedy replies of ``policy`` to every paraphrase, scored; adds the raw replies under "replies"."""
    from alice_app.prompt_sets import run_prompt_set

    return run_prompt_set(policy, rows if rows is not None else load_paraphrases(), max_tokens=max_tokens)


def trained_ideas(families) -> list[str]:
    """The ideas whose family is among ``families`` (a run's training families)."""
    return [idea for idea, family in IDEA_FAMILIES.items() if family in set(families)]


def word_ngrams(text: str, n: int) -> set[tuple[str, ...]]:
    """The word n-grams inside each sentence of ``text``, lower-cased, every number (digits or words)
    written as '#' and operators kept; only n-grams with at least three words count (a run of numbers
    and symbols says nothing about wording)."""
    from alice_app.numbers import WORD_VALUES

    grams = set()
    for part in re.split(r"[.?!:;()]", text.lower()):
        tokens = ["#" if t.isdigit() or t in WORD_VALUES else t
                  for t in re.findall(r"[a-z]+(?:'[a-z]+)?|\d+|[-+×*/=]", part)]
        grams |= {tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)
                  if sum(t[0].isalpha() for t in tokens[i:i + n]) >= 3}
    return grams


def shared_ngrams(texts, n: int = 5, rows: list[dict] | None = None) -> set[tuple[str, ...]]:
    """The word n-grams that ``texts`` share with the paraphrase set: how much of its wording a training
    source (the free wordings of alice_app.tasks.wordings, say) could have taught."""
    held_out = set().union(*(word_ngrams(r["prompt"], n) for r in (rows if rows is not None else load_paraphrases())))
    return set().union(*(word_ngrams(t, n) for t in texts)) & held_out
