"""Duels: two models, each the other's challenger for a fixed budget of proposals.

Each side answers k samples of tasks filled from (1) the seed templates, the same baseline for
both, and (2) the valid proposals the other side wrote. The result is a failure map per model
(template × failure mode: counts and pass rates) and the templates each side found against the
other (its proposals the opponent passes at most half the time). A challenger that fails (an
endpoint timing out) leaves only the baseline, with the reason in ``notes``.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Iterable, Sequence

from alice_app.challenger.difficulty import DEFAULT_TEMPERATURE
from alice_app.challenger.family import SEED_TEMPLATES, fill, known_wordings
from alice_app.challenger.judge import judge_batch, persist, summarize
from alice_app.challenger.policy import propose
from alice_app.failure_modes import label_failure
from alice_app.models.local import seeded_sampling
from alice_app.training.prompts import task_messages

FOUND_AT_MOST = 0.5  # a proposal "found" a weakness when the opponent passes it at most this often


def build_side(settings, spec: str):
    """A duel side: ``embedded`` (the configured model), an adapter folder on it, or a model name."""
    from alice_app.models.factory import build_policy

    if spec == "embedded":
        return build_policy(settings)
    if (Path(spec) / "adapter_config.json").is_file():
        return build_policy(settings, adapter=spec)
    return build_policy(settings.with_overrides(model_name=spec))


def run_duel(services, spec_a: str, spec_b: str, *, budget: int = 8, k: int = 4, fills: int = 2,
             seed: int = 0) -> dict[str, Any]:
    """The duel of two sides given as specs (``build_side``), stored under those specs."""
    a, b = build_side(services.settings, spec_a), build_side(services.settings, spec_b)
    return stored_duel(services, a, b, names=(spec_a, spec_b), budget=budget, k=k, fills=fills, seed=seed)


def stored_duel(services, a, b, *, names: tuple[str, str], budget: int, k: int, fills: int = 2,
                seed: int = 0) -> dict[str, Any]:
    """``duel`` of two loaded policies, stored with ``names`` (what the Challenger tab shows); its ``duel_id`` added."""
    result = duel(services, a, b, budget=budget, k=k, fills=fills, seed=seed)
    result["duel_id"] = services.templates.add_duel(*names, result)
    return result


def duel(services, a, b, *, budget: int, k: int, fills: int = 2, seed: int = 0) -> dict[str, Any]:
    """The duel of two loaded policies (see the module docstring)."""
    sides, notes = {}, []
    for name, challenger, solver, offset in (("A", a, b, 0), ("B", b, a, 1)):
        known = known_wordings(services.templates)
        batch = propose(challenger, budget, seed * 10 + offset, known)
        if batch.error:
            notes.append(batch.error)
        judgements = judge_batch(batch.texts, known, fills=fills, seed=seed * 10 + offset, ops=batch.ops)
        persist(judgements, services.templates, proposer=f"duel:{challenger.model_id}")
        sides[name] = {"model": challenger.model_id, "proposals": summarize(judgements),
                       "valid": distinct_templates(j.proposal for j in judgements if j.valid)}
    for name, opponent, solver in (("A", "B", b), ("B", "A", a)):
        proposals = [(p, "seed") for p in SEED_TEMPLATES] + [(p, f"from {opponent}") for p in sides[opponent]["valid"]]
        sides[name]["failure_map"] = failure_map(solver, services.verifier, proposals, k=k, fills=fills, seed=seed)
    for name, opponent in (("A", "B"), ("B", "A")):
        rows = [r for r in sides[opponent]["failure_map"] if r["source"] == f"from {name}"]
        sides[name]["found_against_opponent"] = [r for r in rows if r["pass_rate"] <= FOUND_AT_MOST]
        sides[name]["valid"] = [p.to_dict() for p in sides[name]["valid"]]
    return {"k": k, "budget": budget, "sides": sides, "notes": notes}


def distinct_templates(proposals: Iterable[Any]) -> list[Any]:
    """``proposals`` with one per template (the first): two replies of one batch that wrote the same template are
    one wording found, counted and mapped once."""
    first: dict[str, Any] = {}
    for proposal in proposals:
        first.setdefault(proposal.template_id, proposal)
    return list(first.values())


def failure_map(solver, verifier, proposals: Sequence[tuple[Any, str]], *, k: int, fills: int,
                seed: int) -> list[dict[str, Any]]:
    """One row per template: samples, passes, pass rate and the failure modes of the wrong samples."""
    tasks = [(p, source, fill(p, seed * 1000 + j)) for p, source in proposals for j in range(fills)]
    with seeded_sampling(seed):  # a local solver's k samples are the same for the same seed
        samples = solver.generate([task_messages(t) for _, _, t in tasks], n=k, temperature=DEFAULT_TEMPERATURE,
                                  max_tokens=48)
    rows: dict[str, dict[str, Any]] = {}
    for (proposal, source, task), answers in zip(tasks, samples):
        row = rows.setdefault(proposal.template_id, {"template_id": proposal.template_id, "template": proposal.template,
                                                     "op": proposal.op, "source": source, "n": 0, "passes": 0,
                                                     "modes": Counter()})
        for answer in answers:
            verdict = verifier.verify(task, answer)
            row["n"] += 1
            row["passes"] += verdict.is_correct
            if not verdict.is_correct:
                row["modes"][label_failure(task, verdict)] += 1
    return [{**r, "pass_rate": round(r["passes"] / r["n"], 4), "modes": dict(r["modes"])} for r in rows.values()]

