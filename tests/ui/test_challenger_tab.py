"""Challenger tab handlers on real Services."""
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
