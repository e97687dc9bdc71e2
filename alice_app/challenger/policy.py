"""The challenger as a policy: which model writes proposals, the prompt it is given, and asking it.

Any policy ALICE runs can be the challenger: ``CHALLENGER_MODEL`` names it the way ``MODEL_NAME``
names the solver (the embedded SmolLM2 by default, a Hugging Face id or local path, or the
endpoint's model id when ``API_BASE_URL`` is set), optionally with its own LoRA adapter. A
challenger that fails or times out does not stop anything: ``propose`` returns no proposals and
the reason, and the caller falls back to the template tasks.
"""
from __future__ import annotations

from dataclasses import dataclass
from random import Random
from typing import Sequence

from alice_app.challenger.proposal import DISTRACTOR_SLOTS, OPS
from alice_app.tasks._arith import SHAPES

SYSTEM = ("You write tricky arithmetic questions that try to mislead a solver with a wrong number. "
          "You never write numbers yourself: you write a template with slots in braces.")


@dataclass(frozen=True)
class ProposalBatch:
    prompts: tuple[tuple[dict, ...], ...]
    ops: tuple[str, ...]
    texts: tuple[str, ...]  # one raw reply per prompt (empty when the challenger failed)
    error: str | None = None  # why there are no replies (timeout, load failure)


def challenger_name(settings) -> str:
    return settings.challenger_model or settings.model_name


def challenger_messages(op: str, examples: Sequence[str]) -> tuple[dict, ...]:
    """The chat asking for one new wording of ``op``, shown ``examples`` of known wordings."""
    operands = ", ".join(f"{{{s}}}" for s in SHAPES[op].fields)
    shown = "\n".join(f"TEMPLATE: {e}" for e in examples)
    user = (f"Known questions:\n{shown}\n\n"
            f"Write ONE new question in different words. Operation: {op} ({SHAPES[op].expr}). "
            f"Use the slots {operands} for the numbers and {{{DISTRACTOR_SLOTS[0]}}} for a wrong number "
            f"the question claims or rules out. Do not write any digits.\n"
            f"Reply with exactly two lines:\nTEMPLATE: <your question>\nOP: {op}")
    return ({"role": "system", "content": SYSTEM}, {"role": "user", "content": user})


def challenger_prompts(count: int, seed: int, known: Sequence[str]) -> list[tuple[str, tuple[dict, ...]]]:
    """``count`` (op, chat) pairs: ops cycle through OPS, two examples drawn from ``known`` each."""
    if count < 1:
        raise ValueError(f"count must be at least 1, not {count}")
    rng = Random(seed)
    ops = list(OPS)
    rng.shuffle(ops)
    pairs = []
    for i in range(count):
        op = ops[i % len(ops)]
        examples = rng.sample(list(known), min(2, len(known)))
        pairs.append((op, challenger_messages(op, examples)))
    return pairs


def propose(challenger, count: int, seed: int, known: Sequence[str], temperature: float = 0.7,
            max_tokens: int = 80) -> ProposalBatch:
    """Ask ``challenger`` for ``count`` proposals; a failing challenger yields none and the reason."""
    pairs = challenger_prompts(count, seed, known)
    ops = tuple(op for op, _ in pairs)
    chats = tuple(chat for _, chat in pairs)
    try:
        if hasattr(challenger, "complete"):  # a local model: its reply begins with "TEMPLATE:", as in training
            prompts = [prefilled_prompt(challenger.tokenizer, chat) for chat in chats]
            texts = challenger.complete(prompts, temperature=temperature, max_tokens=max_tokens, seed=seed)
        else:
            replies = challenger.generate([list(c) for c in chats], n=1, temperature=temperature,
                                          max_tokens=max_tokens)
            texts = [r[0] if r else "" for r in replies]
    except Exception as exc:  # a timeout, a dead endpoint or a broken model: degrade, never crash
        return ProposalBatch(chats, ops, (), error=f"the challenger {getattr(challenger, 'model_id', '?')} "
                                                   f"failed ({exc}); falling back to the template tasks")
    return ProposalBatch(chats, ops, tuple(texts))


def prefilled_prompt(tokenizer, chat: Sequence[dict]) -> str:
    """The chat rendered for the model with the reply already begun by "TEMPLATE:" (for training,
    where TRL continues a plain-text prompt): a small model then writes a template, not an essay."""
    from alice_app.models.local import render_chat

    return render_chat(tokenizer, list(chat)) + "TEMPLATE:"
