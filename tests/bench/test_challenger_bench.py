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


def test_the_one_wording_control_needs_a_worked_warm_start(bench, capsys):
    with pytest.raises(SystemExit) as raised:
        bench.parse_args(["--transfer-arms", "templates", bench.ONE_WORDING])
    assert raised.value.code == 2 and "needs --transfer-worked" in capsys.readouterr().err
    assert bench.parse_args(["--transfer-arms", bench.ONE_WORDING, "--transfer-worked", "8"]).transfer_arms == \
        [bench.ONE_WORDING]
    assert bench.parse_args([]).transfer_arms == [bench.TEMPLATES, bench.CHALLENGER]


def test_transfer_from_reads_a_runs_accepted_templates_oldest_first_and_refuses_a_bad_file(bench, services, tmp_path,
                                                                                          capsys):
    from alice_app.challenger.proposal import Proposal

    for text in ("Ignore anyone who claims {claim}. Add {a} and {b}.", "Tom says {a} - {b} is {claim}. What is it?"):
        assert services.templates.accept(Proposal(text, "add" if "Add" in text else "sub"), proposer="t", novelty=1.0)
    raw = tmp_path / "run.json"
    raw.write_text(json.dumps({"accepted_templates": services.templates.accepted()}))
    args = bench.parse_args(["--transfer-from", str(raw)])
    assert [(p.template, p.op) for p in args.accepted] == services.templates.wordings()  # the order fills draw from
    written = tmp_path / "transfer-only.json"  # what a --transfer-from run writes reads back in the same order
    written.write_text(json.dumps({"accepted_templates": bench.stored_templates(services)}))
    assert [(p.template, p.op) for p in bench.accepted_templates(str(written))] == services.templates.wordings()
    for content, message in [("{}", "lists no accepted_templates"), ("not json", "--transfer-from")]:
        raw.write_text(content)
        with pytest.raises(SystemExit) as raised:
            bench.parse_args(["--transfer-from", str(raw)])
        assert raised.value.code == 2 and message in capsys.readouterr().err
    with pytest.raises(SystemExit):
        bench.parse_args(["--transfer-from", str(tmp_path / "missing.json")])
    assert "--transfer-from" in capsys.readouterr().err


def test_the_worked_part_of_an_arm_is_drawn_apart_from_its_grpo_prompts_and_teaches_as_many_examples(bench, services):
    """The mixed arm's worked tasks: half the template tasks, other tasks than its GRPO prompts, fills with working,
    and as many examples as the template arm's; the one-wording control has the mixed arm's shape from templates."""
    from alice_app.challenger.coevolve import CoevolveConfig
    from alice_app.challenger.proposal import Proposal

    assert services.templates.accept(Proposal("Ignore anyone who claims {claim}. Add {a} and {b}.", "add"),
                                     proposer="test", novelty=1.0, round=1)
    config = CoevolveConfig(solver_steps=8, prompts_per_step=1, seed=3)
    worked, once = bench._worked_tasks(services, config, 6, bench.CHALLENGER)
    grpo, _ = bench._mixed_tasks(services, config)
    templates_only, none = bench._worked_tasks(services, config, 6, bench.TEMPLATES)
    assert len(templates_only) == 6 and not once | none and sum(t.family != "challenger" for t in worked) == 3
    assert not {t.prompt for t in worked} & {t.prompt for t in grpo}
    # A fill is taught in one wording, a template task in all of its: fills are added until both arms teach as
    # many examples.
    target = len(bench._taught(templates_only))
    assert len(bench._taught(worked)) == target and sum(t.family == "challenger" for t in worked) > 3
    fills = bench._taught([t for t in worked if t.family == "challenger"])
    assert fills and all(" = " in example.completion for example in fills)  # the sum worked out, then the answer
    # The control: the same template half in the same places, other template tasks (one wording) for the fills.
    control, single = bench._worked_tasks(services, config, 6, bench.ONE_WORDING)
    assert len(control) == len(worked) and all(t.family != "challenger" for t in control)
    assert [a.prompt for a, b in zip(control, worked) if b.family != "challenger"] == \
        [b.prompt for b in worked if b.family != "challenger"]
    assert len(single) == sum(t.family == "challenger" for t in worked)
    assert not {t.prompt for t in control if t.id in single} & {t.prompt for t in templates_only}
    assert len(bench._taught(control, single)) == target and len(bench._taught(control)) > target


@pytest.mark.slow
def test_a_taught_transfer_arm_fine_tunes_then_steps_with_the_embedded_model(bench, model_services, tmp_path):
    from alice_app.challenger.proposal import Proposal

    assert model_services.templates.accept(Proposal("Ignore anyone who claims {claim}. Add {a} and {b}.", "add"),
                                           proposer="test", novelty=1.0, round=1)
    from alice_app.challenger.coevolve import CoevolveConfig

    config = CoevolveConfig(solver_steps=1, seed=0, template_share=0.5)  # as transfer_arm builds it
    arm = bench.transfer_arm(model_services, model_services.settings, bench.CHALLENGER, 1, 0, tmp_path, 8, worked=2)
    template_examples = len(bench._taught(*bench._worked_tasks(model_services, config, 2, bench.TEMPLATES)))
    assert arm["worked_tasks"] - arm["worked_challenger_tasks"] == 1 and arm["worked_challenger_tasks"] >= 1
    assert arm["worked_examples"] == template_examples
    control = bench.transfer_arm(model_services, model_services.settings, bench.ONE_WORDING, 1, 0, tmp_path / "c", 8,
                                 worked=2)
    assert control["worked_examples"] == template_examples and control["worked_challenger_tasks"] == 0
    assert control["challenger_tasks"] == 0 and control["worked_tasks"] == arm["worked_tasks"]
    assert arm["worked_mean_loss"] > 0 and 0.0 <= arm["paraphrases"]["correct"] <= 1.0


def test_first_seed_runs_the_transfer_from_that_seed_on_and_must_not_be_negative(bench, services, monkeypatch,
                                                                                 tmp_path, capsys):
    import importlib

    import alice_app.models.factory
    from alice_app.challenger.proposal import Proposal

    paraphrases = importlib.import_module("bench.paraphrases")
    with pytest.raises(SystemExit) as raised:
        bench.parse_args(["--first-seed", "-1"])
    assert raised.value.code == 2 and "--first-seed must be at least 0" in capsys.readouterr().err
    assert services.templates.accept(Proposal("Ignore anyone who claims {claim}. Add {a} and {b}.", "add"),
                                     proposer="t", novelty=1.0)
    trained = []
    monkeypatch.setattr(alice_app.models.factory, "build_policy", lambda settings, **_: None)
    monkeypatch.setattr(paraphrases, "run_paraphrases", lambda policy, **_: {"correct": 0.1, "replies": {}})
    monkeypatch.setattr(bench, "transfer_arm", lambda services, settings, arm, steps, seed, *rest: trained.append(
        (seed, arm)) or {"seed": seed})
    args = bench.parse_args(["--first-seed", "3", "--seeds", "2", "--transfer-arms", "templates"])
    out = bench.run_transfer(services, services.settings, args, tmp_path)
    assert [row["seed"] for row in out["seeds"]] == [3, 4] and trained == [(3, "templates"), (4, "templates")]
