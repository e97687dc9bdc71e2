"""Challenger tab handlers on real Services."""
from types import SimpleNamespace

import pytest

from alice_app.challenger.family import SEED_TEMPLATES
from alice_app.challenger.proposal import parse_proposal
from alice_app.ui import challenger

SEEDS = len(SEED_TEMPLATES)
WORDING = "TEMPLATE: Someone insists the total is {claim}. They are wrong. Add {a} and {b}.\nOP: add"


def test_the_accepted_table_says_what_the_family_plays(services):
    *_, note = challenger.show_tab(services)
    assert note.startswith("No accepted wordings yet") and f"its {SEEDS} built-in seed templates" in note
    proposal = parse_proposal(WORDING)
    services.templates.accept(proposal, proposer="unit", novelty=0.7, round=1, run_id=1)
    accepted, *_, note = challenger.show_tab(services)
    assert accepted[0][0] == proposal.template_id
    assert note == f"1 accepted wording: the `challenger` family plays it and its {SEEDS} built-in seed templates."


REQUEST = SimpleNamespace(client=SimpleNamespace(host="203.0.113.9"))


def test_a_duel_from_the_tab_runs_stores_and_shows_both_failure_maps(services, fixed_samples):
    """Both sides are the workbench's policy, here a stand-in whose every reply is one wording: as challenger
    A proposes it (twice: one wording, counted once), as solver B answers with it (always wrong), so A finds it
    against B; B's same proposal is then a duplicate of A's and is rejected."""
    from alice_app.challenger.family import load_catalog

    services.use_policy(fixed_samples([WORDING] * 3))
    message = challenger.run_duel(services, "", "", 2, 3, None, REQUEST, seed=5)
    assert message.startswith("Duel #1 done: A (the workbench's current model) wrote 2 proposals")
    assert "wrote 2 proposals, 1 valid and novel, and found 1 the other passes at most half the time; B" in message
    assert "wrote 2 proposals, 0 valid and novel (rejected: near_duplicate 2), and found 0 the other" in message
    assert "`python -m alice_app duel --a embedded --b embedded --budget 2 --k 3 --seed 5`" in message
    *_, summary, rows, _ = challenger.show_tab(services)
    assert summary.startswith("Duel #1: A = fixed, B = fixed (k = 3).")
    assert {row[1] for row in rows} == {"seed", "from A"}
    assert all(row[3] == "0.00" for row in rows)  # the stand-in's reply is never an answer
    assert {row[4] for row in rows if row[1] == "seed"} == {3 * 2}  # k samples of 2 fills a template
    load_catalog(services.templates)


@pytest.mark.parametrize("budget, k, reason", [
    (0, 4, "Proposals per side"), (17, 4, "Proposals per side"), ("four", 4, "is not a number"),
    (4, 0, "Samples per task (k)"), (4, 9, "Samples per task (k)"), (4, 2.5, "whole number"),
])
def test_a_duel_refuses_bad_limits_before_any_model_loads(services, budget, k, reason):
    message = challenger.run_duel(services, "", "", budget, k, None, REQUEST)
    assert message.startswith("⚠") and reason in message
    assert services.templates.duels() == []


def test_a_duel_refuses_unlisted_models_and_a_wrong_password(services, settings, tmp_path):
    from dataclasses import replace

    from alice_app.services import Services, duel_models

    assert challenger.run_duel(services, "/tmp/not-a-run", "", 1, 1, None, REQUEST).startswith(
        "⚠ Choose both models from the lists")
    with pytest.raises(ValueError, match="is not a LoRA adapter folder"):
        duel_models(services, str(tmp_path), None, budget=1, k=1, seed=0)
    guarded = Services.from_settings(replace(settings, db_path=tmp_path / "other.db", admin_password="s3cret"))
    try:
        assert "password" in challenger.run_duel(guarded, "", "", 1, 1, "wrong", REQUEST).lower()
        assert guarded.templates.duels() == []
    finally:
        guarded.close()
