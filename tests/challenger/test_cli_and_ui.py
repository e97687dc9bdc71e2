import pytest

from alice_app.challenger.coevolve import CoevolveConfig
from alice_app.cli import main


@pytest.mark.parametrize("argv, message", [
    (["coevolve", "--rounds", "0"], "rounds must be at least 1"),
    (["coevolve", "--rounds", "1", "--k", "0"], "k must be at least 1"),
    (["coevolve", "--rounds", "1", "--seed", "-1"], "seed must be a whole number"),
    (["duel", "--a", "embedded", "--b", "embedded", "--budget", "0"], "--budget and --k must be at least 1"),
])
def test_bad_arguments_fail_before_any_model_loads(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_coevolve_config_maps_onto_training_configs():
    config = CoevolveConfig(challenger_steps=3, solver_steps=2, challenger_tokens=64).validate()
    challenger, solver = config.train_config("challenger"), config.train_config("solver")
    assert (challenger.steps, challenger.max_completion_length, challenger.eval_n_per_cell) == (3, 64, 0)
    assert (solver.steps, solver.max_completion_length) == (2, 48)
    with pytest.raises(ValueError, match="template_share"):
        CoevolveConfig(template_share=2.0).validate()


def test_the_challenger_view_shows_accepted_rejected_rounds_and_duels(settings):
    from alice_app.challenger.proposal import parse_proposal
    from alice_app.services import Services
    from alice_app.ui import challenger as view

    services = Services.from_settings(settings)
    proposal = parse_proposal("TEMPLATE: Someone insists the total is {claim}. They are wrong. Add {a} and {b}.\nOP: add")
    services.templates.accept(proposal, proposer="unit", novelty=0.7, round=1, run_id=1)
    services.templates.record_pass_rate(proposal.template_id, 2, 4, "solver")
    services.templates.reject("TEMPLATE: {a.__class__}", "slot_syntax", "not a plain name", proposer="unit")
    services.templates.add_round(1, 1, {"challenger": {"proposals": 2, "validity_rate": 0.5, "novelty_rate": 0.5,
                                                       "zone_rate": 0.5, "mean_reward": 0.4},
                                        "challenger_tasks": 1, "solver_note": "1 template in the zone"})
    accepted, reasons, rejected, rounds, duel_summary, duel = view.show(services)
    assert accepted[0][0] == proposal.template_id and accepted[0][3] == "0.50"
    assert "slot_syntax" in reasons and rejected[0][0] == "slot_syntax"
    assert rounds[0][:3] == [1, 1, 2] and "No duel yet" in duel_summary and duel == []
    assert "⚠" in view.delete_template(services, "nope", None)
    assert "deleted" in view.delete_template(services, proposal.template_id, None)
    assert view.show(services)[0] == []
    services.close()


def test_deleting_needs_the_admin_password_when_one_is_set(settings):
    from dataclasses import replace

    from alice_app.services import Services
    from alice_app.ui import challenger as view

    services = Services.from_settings(replace(settings, admin_password="s3cret"))
    assert "⚠" in view.delete_template(services, "abc", "wrong")
    assert "No stored template" in view.delete_template(services, "abc", "s3cret")
    services.close()
