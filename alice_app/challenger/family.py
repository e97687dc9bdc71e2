"""The ``challenger`` task family: tasks filled from stored challenger templates.

The catalog holds the seed templates (hand-written wordings of the built-in families, which are
also what novelty is measured against) plus every template accepted into the store
(``load_catalog``). ``generate(level, seed, {"template_id": id})`` fills that template; without a
template id the seed picks one of the level's templates. Operands come from ``Random(seed)``, the
distractors are tempting wrong values of the same expression (wrong operator, off by one, double),
and a fill whose prompt would state the answer is redrawn, so the answer is always computed by
code and never appears in the prompt.
"""
from __future__ import annotations

import threading
from random import Random
from typing import Iterable

from alice_app.challenger.proposal import OPS, Proposal, fill_slots
from alice_app.tasks._arith import SHAPES, confusions, evaluate, render, sample_operands, tempting_values
from alice_app.tasks._common import make_task
from alice_app.tasks.registry import Family, register
from alice_app.types import Task

NAME = "challenger"
FILL_TRIES = 20

SEED_TEMPLATES: tuple[Proposal, ...] = (
    Proposal("If the result is NOT {claim}, what is {a} + {b}?", "add"),
    Proposal("If the result is not {claim}, what is the sum of {a} and {b}?", "add"),
    Proposal("Ann says that {a} - {b} is {claim}. That is wrong. What is {a} - {b}?", "sub"),
    Proposal("Ann says that {a} × {b} is {claim}. That claim is false. What is {a} × {b}?", "mul"),
    Proposal("If the result isn't {claim} and isn't {claim2}, what is {a} + {b} + {c}?", "add3"),
    Proposal("What is {a} + {b} - {c}, given that the result is NOT {claim}?", "add_sub"),
    Proposal("Ann says that {a} × {b} + {c} is {claim}; Ben says it is {claim2}. Both are wrong. "
             "What is {a} × {b} + {c}?", "mul_add"),
    Proposal("What is {a} + {b} × {c}, given that the result is not equal to {claim} and not equal to "
             "{claim2}?", "mixed"),
    Proposal("Ann says that ({a} + {b}) × {c} is {claim}; Ben says it is {claim2}. Both are wrong. "
             "What is ({a} + {b}) × {c}?", "paren_mul"),
)

_lock = threading.Lock()
_catalog: dict[str, Proposal] = {p.template_id: p for p in SEED_TEMPLATES}


def catalog() -> dict[str, Proposal]:
    with _lock:
        return dict(_catalog)


def add_to_catalog(proposals: Iterable[Proposal]) -> None:
    with _lock:
        _catalog.update({p.template_id: p for p in proposals})


def load_catalog(store) -> int:
    """Replace the non-seed templates with the store's accepted ones; returns the catalog size."""
    accepted = {p.template_id: p for p in (Proposal(t, op) for t, op in store.wordings())}
    with _lock:
        _catalog.clear()
        _catalog.update({p.template_id: p for p in SEED_TEMPLATES})
        _catalog.update(accepted)
        return len(_catalog)


def known_wordings(store=None, extra: Iterable[str] = ()) -> list[str]:
    """Every wording novelty is measured against: the seed templates, the stored ones, ``extra``."""
    stored = [template for template, _ in store.wordings()] if store is not None else []
    return [p.template for p in SEED_TEMPLATES] + stored + list(extra)


def fill(proposal: Proposal, seed: int, level: str | None = None) -> Task:
    """The task of ``proposal`` for ``seed``: operands and distractors drawn, answer computed."""
    rng = Random(seed)
    shape = SHAPES[proposal.op]
    digits = OPS[proposal.op][1]
    claims = proposal.distractor_slots()
    for _ in range(FILL_TRIES):
        operands = sample_operands(shape, rng, digits)
        expr, _text = render(shape, operands)
        answer = evaluate(expr)
        distractors = tempting_values(expr, rng, len(claims))
        values = {**dict(zip(shape.fields, operands)), **dict(zip(claims, distractors))}
        question = fill_slots(proposal.template, values)
        if str(answer) not in _numbers(question):
            return _task(proposal, seed, level or proposal.level, question, answer, operands, expr, distractors)
    raise ValueError(f"template {proposal.template_id} states its answer for every draw of seed {seed}")


def _numbers(text: str) -> set[str]:
    import re

    return set(re.findall(r"-?\d+", text))


def _task(proposal: Proposal, seed: int, level: str, question: str, answer: int, operands, expr: str,
          distractors) -> Task:
    shape = SHAPES[proposal.op]
    hint = ("The numbers the wording claims or rules out are there to mislead: they take no part in the "
            f"calculation. Ignore them and {shape.words}.")
    metadata = {"template_id": proposal.template_id, "template": proposal.template, "op": proposal.op,
                "operands": list(operands), "operator": shape.expr, "expression": expr,
                "distractors": list(distractors), "negated": True, "alternatives": list(confusions(expr)),
                "params": {"template_id": proposal.template_id}}
    return make_task(NAME, level, seed, {"template_id": proposal.template_id}, question=question, answer=answer,
                     hint=hint, metadata=metadata)


def generate(level: str, seed: int, params: dict) -> Task:
    templates = catalog()
    template_id = params.get("template_id")
    if template_id is not None:
        if template_id not in templates:
            raise ValueError(f"challenger template {template_id!r} is not in the catalog (deleted, or not "
                             f"loaded: open the store first)")
        return fill(templates[template_id], seed, level)
    at_level = sorted((tid for tid, p in templates.items() if p.level == level)) or sorted(templates)
    return fill(templates[Random(seed).choice(at_level)], seed, level)


FAMILY = register(Family(
    name=NAME,
    description="Wordings written by a challenger model (and the seed templates), filled by the engine",
    generate=generate,
    core=False,
    params=("template_id",),
))
