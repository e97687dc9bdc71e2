import pytest

from alice_app.challenger.coevolve import CoevolveConfig
from alice_app.cli import main


@pytest.mark.parametrize("argv, message", [
    (["coevolve", "--rounds", "0"], "rounds must be at least 1"),
    (["coevolve", "--rounds", "1", "--k", "0"], "k must be at least 1"),
    (["coevolve", "--rounds", "1", "--seed", "-1"], "seed must be a whole number"),
    (["coevolve", "--challenger-warm-start", "5000"], "challenger_warm_start must lie in 0..1000"),
    (["coevolve", "--config", "/nonexistent/recipe.yaml"], "does not exist"),
    (["duel", "--a", "embedded", "--b", "embedded", "--budget", "0"], "--budget and --k must be at least 1"),
])
def test_bad_arguments_fail_before_any_model_loads(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_every_coevolve_setting_is_a_flag_and_a_recipe_key(tmp_path):
    import argparse
    from dataclasses import fields

    from alice_app.cli.challenger import register
    from alice_app.cli.recipe import config_from_args

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command"))
    recipe = tmp_path / "co.yaml"
    recipe.write_text("rounds: 3\nnum_generations: 8\n")
    args = parser.parse_args(["coevolve", "--config", str(recipe), "--rounds", "2", "--challenger-warm-start", "64"])
    config = config_from_args(args, CoevolveConfig, args.config)
    assert (config.rounds, config.num_generations, config.challenger_warm_start, config.k) == (2, 8, 64, 4)
    flags = {option for action in parser._subparsers._group_actions[0].choices["coevolve"]._actions
             for option in action.option_strings}
    assert {f"--{f.name}" for f in fields(CoevolveConfig)} <= flags


def test_coevolve_settings_from_plain_values_refuse_unknown_names_and_wrong_types():
    assert CoevolveConfig.from_dict({"rounds": 2}).rounds == 2
    with pytest.raises(ValueError, match="unknown co-evolution settings: roundz"):
        CoevolveConfig.from_dict({"roundz": 2})
    with pytest.raises(ValueError, match="k must be"):
        CoevolveConfig.from_dict({"k": "4"})


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
