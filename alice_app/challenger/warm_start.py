"""The challenger's warm start: before its first GRPO round, it is fine-tuned on well-formed proposals.

A fresh 135M challenger mostly writes proposals that validation rejects (a missing operand, a digit, a
copy of its examples), so every reward is 0 and GRPO has nothing to learn from. The warm start shows it
what a valid proposal looks like: ``composed_proposals`` writes wordings with the free-wording frames of
``alice_app.tasks.wordings`` (a question frame and a distraction sentence, with slot names where the numbers
go: "Priya thinks it is {claim}. Priya is mistaken. Find {a} plus {b}."), keeps the ones ``validate`` accepts,
and ``run_challenger_warm_start`` fine-tunes the challenger on them as replies to its own prompt
("TEMPLATE: …" / "OP: …"). These wordings are ours, so they join the wordings novelty is measured against
(``warm_start_wordings``): a challenger that only repeats them proposes nothing new.
"""
from __future__ import annotations

from random import Random
from typing import Any, Sequence

from alice_app.challenger.policy import challenger_prompts
from alice_app.challenger.proposal import DISTRACTOR_SLOTS, OPS, Proposal, Rejected, validate
from alice_app.tasks._arith import SHAPES
from alice_app.tasks.wordings import DISTRACTION_KINDS, compose
from alice_app.training.warm_start import Example, WarmStartReport, teach

SEED_OFFSET = 104_729  # the warm start's compositions are not the co-evolution's prompt seeds


def composed_proposals(count: int, seed: int) -> list[Proposal]:
    """Up to ``count`` distinct valid proposals composed from the free-wording frames, ops in turn."""
    rng = Random(seed + SEED_OFFSET)
    found: dict[str, Proposal] = {}
    ops = list(OPS)
    for attempt in range(count * 20):
        if len(found) >= count:
            break
        op = ops[attempt % len(ops)]
        shape = SHAPES[op]
        claims = [f"{{{slot}}}" for slot in DISTRACTOR_SLOTS[: rng.randint(1, 2)]]
        template = compose(op, [f"{{{slot}}}" for slot in shape.fields], shape.expr, distractors=claims,
                           kind=rng.choice(DISTRACTION_KINDS), position=rng.choice(("start", "end")),
                           key=f"challenger/{seed}/{attempt}")
        try:
            proposal = validate(Proposal(template, op))
        except Rejected:
            continue
        found.setdefault(proposal.template_id, proposal)
    return list(found.values())


def warm_start_wordings(count: int, seed: int) -> list[str]:
    """The templates the warm start of ``count`` proposals teaches (for the novelty yardstick)."""
    return [p.template for p in composed_proposals(count, seed)] if count else []


def warm_start_examples(proposals: Sequence[Proposal], seed: int, known: Sequence[str]) -> list[Example]:
    """Each proposal as the reply to a challenger prompt asking for its op (two of ``known`` shown)."""
    by_op: dict[str, list[Proposal]] = {}
    for proposal in proposals:
        by_op.setdefault(proposal.op, []).append(proposal)
    examples = []
    for op, chat in challenger_prompts(len(proposals) * 2, seed + SEED_OFFSET, known):
        if by_op.get(op):
            proposal = by_op[op].pop()
            examples.append(Example(chat, f"TEMPLATE: {proposal.template}\nOP: {proposal.op}"))
    return examples


def run_challenger_warm_start(model: Any, tokenizer: Any, lora_config: Any, proposals: Sequence[Proposal], seed: int,
                              known: Sequence[str], learning_rate: float) -> tuple[Any, WarmStartReport]:
    """(the challenger with a LoRA adapter fine-tuned on ``proposals`` (``composed_proposals``), what it did)."""
    from peft import get_peft_model

    if not hasattr(model, "peft_config"):
        model = get_peft_model(model, lora_config)
    examples = warm_start_examples(proposals, seed, known)
    return model, teach(model, tokenizer, examples, learning_rate, prompts=len(proposals))
