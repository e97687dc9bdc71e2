"""bench/challenger.py: its arguments, its mixed solver feed and its headline, without a model; the
whole pipeline with the embedded model behind the slow marker."""
import json

import pytest


@pytest.fixture
def bench(load_script):
    return load_script("bench/challenger.py")


@pytest.mark.parametrize("argv", [["--seeds", "0"], ["--k", "0"], ["--proposals", "-3"], ["--rounds", "0"]])
def test_sizes_below_one_exit_2_before_anything_loads(bench, argv, capsys):
    with pytest.raises(SystemExit) as raised:
        bench.parse_args(argv)
    assert raised.value.code == 2 and "must be at least 1" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["-1", "1001"])
def test_a_bad_warm_start_exits_2_before_anything_loads(bench, value, capsys):
    with pytest.raises(SystemExit) as raised:
        bench.parse_args(["--warm-start", value])
    assert raised.value.code == 2 and "--warm-start must lie in 0..1000" in capsys.readouterr().err


@pytest.mark.parametrize("out", ["{tmp}", "{tmp}/missing/result.json"])
def test_an_out_that_cannot_be_written_exits_2_before_anything_loads(bench, out, tmp_path, capsys):
    with pytest.raises(SystemExit) as raised:
        bench.parse_args(["--out", out.format(tmp=tmp_path)])
    assert raised.value.code == 2 and "--out must be a file in an existing folder" in capsys.readouterr().err
    assert bench.parse_args(["--out", str(tmp_path / "result.json")]).out.endswith("result.json")


def test_the_yardstick_holds_what_the_warm_start_teaches(bench):
    assert len(bench.yardstick(0)) == 9 and len(bench.yardstick(16)) == 9 + 16


def test_quick_sizes(bench):
    args = bench.parse_args(["--quick"])
    assert (args.proposals, args.challenger_steps, args.transfer_steps, args.duel_budget) == (2, 1, 1, 1)


def test_the_mixed_arm_draws_half_its_prompts_from_accepted_templates(bench, services):
    from alice_app.challenger.coevolve import CoevolveConfig
    from alice_app.challenger.proposal import Proposal

    wording = Proposal("Ignore anyone who claims {claim}. Add {a} and {b}.", "add")
    assert services.templates.accept(wording, proposer="test", novelty=1.0, round=1)
    config = CoevolveConfig(solver_steps=8, prompts_per_step=1, seed=3)
    tasks, note = bench._mixed_tasks(services, config)
    templates, _ = bench._template_tasks(config)
    assert len(tasks) == len(templates) == 8
    challenger = [t for t in tasks if t.family == "challenger"]
    assert len(challenger) == 4 and "4 of 8 prompts from 1 accepted" in note
    assert all(t.prompt.startswith("Ignore anyone who claims") for t in challenger)


def test_the_headline_reports_a_transfer_that_could_not_run(bench):
    side = {"failure_map": [{"source": "seed", "op": "+", "pass_rate": 0.5}]}
    quality = {"validity_rate": 0.0, "novelty_rate": 0.0, "zone_rate": 0.0, "mean_reward": 0.0, "rewarded_share": 0.0,
               "rejections": {}}
    result = {"before": quality, "after": quality, "accepted_templates": [], "seconds": 1.0,
              "transfer": {"base": {"correct": 0.1}, "seeds": [], "note": "no challenger template was accepted"},
              "duel": {"sides": {"a": side, "b": side}}}
    head = bench.headline(result)
    assert head["transfer"] == "no challenger template was accepted" and head["paraphrases_base"] == 0.1
    json.dumps(head)
    only = bench.headline({"before": quality, "seconds": 2.0})  # --proposals-only
    assert only == {"before": quality, "seconds": 2.0}


@pytest.mark.slow
def test_the_quick_run_measures_every_part_with_the_embedded_model(bench, tmp_path):
    out = tmp_path / "challenger.json"
    assert bench.main(["--quick", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    for part in ("before", "after"):
        assert result[part]["proposals"] == 2 and 0.0 <= result[part]["validity_rate"] <= 1.0
    assert len(result["coevolve"]) == 1 and "base" in result["transfer"]
    assert set(result["duel"]["sides"]) == {"A", "B"}


@pytest.mark.slow
def test_proposals_only_judges_the_fresh_challenger_and_trains_nothing(bench, tmp_path):
    out = tmp_path / "proposals.json"
    assert bench.main(["--proposals-only", "--proposals", "3", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["before"]["proposals"] == 3 and len(result["before"]["judged"]) == 3
    assert not {"after", "coevolve", "transfer", "duel", "warm"} & set(result)


@pytest.mark.slow
def test_proposals_only_with_a_warm_start_judges_the_warm_challenger_too(bench, tmp_path):
    out = tmp_path / "warm.json"
    assert bench.main(["--proposals-only", "--proposals", "2", "--warm-start", "4", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["warm"]["proposals"] == 2 and not {"after", "coevolve"} & set(result)


@pytest.mark.parametrize("flag", ["--harvest", "--transfer-worked"])
def test_a_bad_harvest_or_worked_size_exits_2_before_anything_loads(bench, flag, capsys):
    with pytest.raises(SystemExit) as raised:
        bench.parse_args([flag, "-1"])
    assert raised.value.code == 2 and f"{flag} must lie in 0..1000" in capsys.readouterr().err


def test_the_worked_part_of_an_arm_is_drawn_apart_from_its_grpo_prompts_and_teaches_as_many_examples(bench, services):
    """The mixed arm's worked tasks: half the template tasks, other tasks than its GRPO prompts, fills with working,
    and as many examples as the template arm's."""
    from alice_app.challenger.coevolve import CoevolveConfig
    from alice_app.challenger.proposal import Proposal
    from alice_app.training.warm_start import worked_examples

    assert services.templates.accept(Proposal("Ignore anyone who claims {claim}. Add {a} and {b}.", "add"),
                                     proposer="test", novelty=1.0, round=1)
    config = CoevolveConfig(solver_steps=8, prompts_per_step=1, seed=3)
    worked = bench._worked_tasks(services, config, 6, use_challenger=True)
    grpo, _ = bench._mixed_tasks(services, config)
    templates_only = bench._worked_tasks(services, config, 6, use_challenger=False)
    assert len(templates_only) == 6 and sum(t.family != "challenger" for t in worked) == 3
    assert not {t.prompt for t in worked} & {t.prompt for t in grpo}
    # A fill is taught in one wording, a template task in all of its: fills are added until both arms teach as
    # many examples.
    assert len(worked_examples(worked)) == len(worked_examples(templates_only))
    assert sum(t.family == "challenger" for t in worked) > 3
    fills = worked_examples([t for t in worked if t.family == "challenger"])
    assert fills and all(" = " in example.completion for example in fills)  # the sum worked out, then the answer


@pytest.mark.slow
def test_a_taught_transfer_arm_fine_tunes_then_steps_with_the_embedded_model(bench, model_services, tmp_path):
    from alice_app.challenger.proposal import Proposal

    assert model_services.templates.accept(Proposal("Ignore anyone who claims {claim}. Add {a} and {b}.", "add"),
                                           proposer="test", novelty=1.0, round=1)
    from alice_app.challenger.coevolve import CoevolveConfig
    from alice_app.training.warm_start import worked_examples

    config = CoevolveConfig(solver_steps=1, seed=0, template_share=0.5)  # as transfer_arm builds it
    arm = bench.transfer_arm(model_services, model_services.settings, True, 1, 0, tmp_path, 8, worked=2)
    template_examples = len(worked_examples(bench._worked_tasks(model_services, config, 2, use_challenger=False)))
    assert arm["worked_tasks"] - arm["worked_challenger_tasks"] == 1 and arm["worked_challenger_tasks"] >= 1
    assert arm["worked_examples"] == template_examples
    assert arm["worked_mean_loss"] > 0 and 0.0 <= arm["paraphrases"]["correct"] <= 1.0
