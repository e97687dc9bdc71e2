"""The learning bench's numbers: per-seed figures, mean and min–max over seeds, the targets, the
README table and the plots. Pure functions of the arms' JSON (bench/experiment.py), so they are
tested without training anything."""
from __future__ import annotations

from alice_app.evaluation import headline_penalty
from alice_app.tasks import default_families
from alice_app.training.rewards import FEED_SOURCES
from bench.paraphrases import trained_ideas

ARMS = ("alice", "static")  # compared in every seed; other arms (episode) are reported beside them
ARM_LABELS = {"alice": "ALICE feed", "static": "static dataset", "episode": "ALICE feed, episode mode"}
EARLY_STEPS = 21  # one step per cell of the seven families' frontier (3 levels each, lookahead 2)


def mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def parity_shares(measured: dict | None) -> tuple[float | None, float | None]:
    """(odd, even): the correct shares of the hand-written negation-parity set's prompts with an odd and with an
    even count of negations; None where it was not measured (no double_negation, or a run before the set)."""
    parity = ((measured or {}).get("paraphrases") or {}).get("negation_parity") or {}
    by_idea = parity.get("by_idea", {})
    return by_idea.get("odd_negations"), by_idea.get("even_negations")


def curve(arm: dict) -> list[dict]:
    """(step, penalty, accuracy): before at step 0, the evaluations during training, after at the end."""
    points = [(0, arm["before"]["penalty"], arm["before"]["accuracy"])]
    points += [(p["step"], p["penalty"], p["table"]) for p in arm["curve"]]
    points.append((arm["config"]["steps"], arm["after"]["penalty"], arm["after"]["accuracy"]))
    return [{"step": s, "penalty": headline_penalty(pen), "accuracy": mean(a for row in acc.values() for a in row.values())}
            for s, pen, acc in points]


def _worst_control_change(before: dict, after: dict) -> float | None:
    """The largest drop (most negative change) over control cells: twins, and plain_arithmetic itself."""
    cells = [(before["control"], after["control"]), ({"plain": before["accuracy"].get("plain_arithmetic", {})},
                                                     {"plain": after["accuracy"].get("plain_arithmetic", {})})]
    changes = [a[f][lv] - b[f][lv] for b, a in cells for f in b for lv in b[f]]
    return min(changes) if changes else None


def arm_figures(arm: dict) -> dict:
    before, after = arm["before"], arm["after"]
    pen_b, pen_a = headline_penalty(before["penalty"]), headline_penalty(after["penalty"])
    negation = after["accuracy"].get("negation_arithmetic", {})
    families = arm["config"].get("families") or default_families()  # empty: what training took
    figures = {
        "penalty_before": pen_b, "penalty_after": pen_a,
        "penalty_reduction": (pen_b - pen_a) / pen_b if pen_b and pen_b > 0 else None,
        "negation_easy": negation.get("easy"), "negation_medium": negation.get("medium"),
        "negation_hard": negation.get("hard"),
        "control_worst_change": _worst_control_change(before, after),
        "accuracy_before": curve(arm)[0]["accuracy"], "accuracy_after": curve(arm)[-1]["accuracy"],
        "banked_solved": arm["repair"]["solved_share"], "repaired_share": arm["repair"]["repaired_share"],
        "failed_before": arm["repair"]["failed_before"], "kept_solved": kept_solved(arm),
        # the group figures are shares of every batch generated: a step that redrew (redraw_uniform) counts each
        # batch it drew, dropped or kept (batch_mean); without redraws, the plain mean over the steps
        "zero_std": batch_mean(arm["metrics"], "frac_reward_zero_std"),
        "uniform": batch_mean(arm["metrics"], "frac_outcome_uniform"),
        # the same over the first EARLY_STEPS steps and the rest: what the feed pays while its cells are unmeasured
        "uniform_early": batch_mean(_uniform_steps(arm["metrics"])[:EARLY_STEPS], "frac_outcome_uniform"),
        "uniform_late": batch_mean(_uniform_steps(arm["metrics"])[EARLY_STEPS:], "frac_outcome_uniform"),
        # which outcome the one-outcome groups had (a step's accuracy 0 or 1 says it when a step is one group)
        "uniform_all_wrong": _one_group_steps_at(arm, 0.0), "uniform_all_right": _one_group_steps_at(arm, 1.0),
        # per feed source (raws before 2026-12-06 did not record them: n/a): its share of the groups, and the
        # share of its groups with one outcome (does a zone replay predict a mixed group better than a hunt?)
        **{f"groups_{source}": batch_mean(arm["metrics"], f"groups_{source}") for source in FEED_SOURCES},
        **{f"uniform_{source}": _source_uniform(arm["metrics"], source) for source in FEED_SOURCES},
        # the training replies whose wrong answer is another number of their prompt, all steps and after EARLY_STEPS
        # (raws before 2026-12-06 did not record it: n/a), and the worked examples the replay taught in all
        "train_echo": batch_mean(arm["metrics"], "echo"),
        "train_echo_late": batch_mean([m for m in arm["metrics"] if m.get("step", 0) > EARLY_STEPS], "echo"),
        "replay_examples": _total(m.get("worked_replay") for m in arm["metrics"]),
        # with redraw_uniform (else n/a): batches dropped a step for one outcome (each one more generation), and
        # the share of steps that still trained on a one-outcome batch; "uniform" above counts every batch drawn
        "redraws": mean(m.get("redraws") for m in arm["metrics"]),
        "uniform_trained": mean(m.get("uniform_trained") for m in arm["metrics"]),
        "step_seconds": mean(m.get("step_time") for m in arm["metrics"]),
        "completion_tokens": mean(m.get("completion_length") for m in arm["metrics"]),
        "step_minutes": sum(m.get("step_time") or 0.0 for m in arm["metrics"]) / 60,
        "warm_start_minutes": sum(m.get("warm_start_seconds") or 0.0 for m in arm["metrics"]) / 60,
        # CPU-minutes of the arm's one thread (raws before 2026-12-05 did not record them: n/a); wall minutes grow
        # when the machine is busy with other work, these do far less
        "step_cpu_minutes": _cpu_minutes(arm["metrics"], "step_cpu_time"),
        "warm_start_cpu_minutes": _cpu_minutes(arm["metrics"], "warm_start_cpu_seconds"),
        "probe_cpu_minutes": _cpu_minutes(arm["metrics"], "feed_probe_cpu_seconds"),  # the feed probe (if any)
        "probe_mixed": _probe_mixed_share(arm["metrics"]),
    }
    figures["training_cpu_minutes"] = (None if figures["step_cpu_minutes"] is None else
                                       figures["step_cpu_minutes"] + (figures["warm_start_cpu_minutes"] or 0.0)
                                       + (figures["probe_cpu_minutes"] or 0.0))
    warm = arm.get("warm_start")  # measured after the warm start, before step 1 (runs before it, or none: n/a)
    figures["warm_accuracy"] = mean(a for row in warm["accuracy"].values() for a in row.values()) if warm else None
    figures["warm_penalty"] = headline_penalty(warm["penalty"]) if warm else None
    figures["warm_paraphrase_correct"] = warm["paraphrases"]["correct"] if warm else None
    figures["warm_paraphrase_echo"] = warm["paraphrases"]["echo_distractor"] if warm else None
    hunt = (warm or {}).get("hunt")  # with --bank-after-warm-start: the hunt played again after the warm start
    figures["warm_turn1"], figures["warm_by_turn5"] = (hunt["turn1"], hunt["by_turn5"]) if hunt else (None, None)
    figures["warm_variants"] = warm["variants"]["all_solved"] if hunt else None
    figures["banked_after_warm_start"] = float(bool(arm.get("banked_after_warm_start")))
    figures["warm_paraphrase_trained"] = (mean(warm["paraphrases"].get("by_idea", {}).get(i) for i in trained_ideas(families))
                                          if warm else None)
    figures["warm_parity_odd"], figures["warm_parity_even"] = parity_shares(warm)
    for when, measured in (("before", before), ("after", after)):
        figures[f"paraphrase_correct_{when}"] = measured["paraphrases"]["correct"]
        figures[f"paraphrase_echo_{when}"] = measured["paraphrases"]["echo_distractor"]
        by_idea = measured["paraphrases"].get("by_idea", {})
        figures[f"paraphrase_trained_{when}"] = mean(by_idea.get(i) for i in trained_ideas(families))
        figures[f"parity_odd_{when}"], figures[f"parity_even_{when}"] = parity_shares(measured)
        figures[f"prompt_number_{when}"] = measured["shortcuts"]["prompt_number"]
        figures[f"self_contradiction_{when}"] = measured["shortcuts"]["self_contradiction"]
        figures[f"turn1_{when}"] = measured["hunt"]["turn1"]
        figures[f"variants_{when}"] = measured.get("variants", {}).get("all_solved")  # runs before it: n/a
        figures[f"by_turn5_{when}"] = measured["hunt"]["by_turn5"]
        free = measured.get("free_wording") or {}  # runs before it, or no family that offers free wordings: n/a
        deceptive = [row for family, row in free.get("accuracy", {}).items() if family in free.get("penalty", {})]
        figures[f"free_accuracy_{when}"] = mean(a for row in deceptive for a in row.values()) if deceptive else None
        figures[f"free_penalty_{when}"] = headline_penalty(free["penalty"]) if free.get("penalty") else None
    return figures


def banking_hunt(arm: dict) -> dict:
    """The hunt whose failures an arm's repair figures count: the one after the warm start when the arm banked
    there (``--bank-after-warm-start``), else the one before training."""
    return arm["warm_start"]["hunt"] if arm.get("banked_after_warm_start") else arm["before"]["hunt"]


def kept_solved(arm: dict) -> float | None:
    """Of the banking hunt's tasks solved at turn 1, the share still solved at turn 1 after training: what
    training broke. None without any."""
    after = {e["task_id"]: e["first"] for e in arm["after"]["hunt"]["episodes"]}
    kept = [after[e["task_id"]] for e in banking_hunt(arm)["episodes"] if e["first"] and e["task_id"] in after]
    return sum(kept) / len(kept) if kept else None


def _uniform_steps(metrics: list[dict]) -> list[dict]:
    return [m for m in metrics if m.get("frac_outcome_uniform") is not None]


def batches(step: dict) -> float:
    """The generation batches a step judged: one, plus those it dropped (``redraws``, with redraw_uniform)."""
    return 1.0 + (step.get("redraws") or 0.0)


def batch_mean(metrics: list[dict], key: str) -> float | None:
    """``key`` over every batch the steps generated: each step's value (TRL's mean over the batches it judged)
    weighted by its ``batches``; the plain mean over the steps where none redrew. None where none recorded it."""
    rows = [(m[key], batches(m)) for m in metrics if m.get(key) is not None]
    weight = sum(w for _, w in rows)
    return sum(value * w for value, w in rows) / weight if weight else None


def _total(values) -> float | None:
    """The sum of the values that were recorded; None where none was (a raw from before the figure)."""
    values = [v for v in values if v is not None]
    return sum(values) if values else None


def _one_group_steps_at(arm: dict, accuracy: float) -> float | None:
    """Share of the steps whose accuracy was ``accuracy`` (0: all wrong, 1: all right), where every step trained
    one prompt's group (``prompts_per_step`` 1) and judged one batch; None otherwise (several prompts a step, or
    redraw_uniform), where a step's accuracy mixes groups."""
    if arm["config"].get("prompts_per_step") != 1 or arm["config"].get("redraw_uniform"):
        return None
    steps = [m["accuracy"] for m in arm["metrics"] if m.get("step", 0) > 0 and m.get("accuracy") is not None]
    return sum(a == accuracy for a in steps) / len(steps) if steps else None


def _source_uniform(metrics: list[dict], source: str) -> float | None:
    """Share of ``source``'s groups with one outcome over the run (each step's share weighted by its groups, and
    by its batches)."""
    steps = [(m[f"groups_{source}"] * batches(m), m[f"uniform_{source}"]) for m in metrics
             if m.get(f"uniform_{source}") is not None]
    groups = sum(share for share, _ in steps)
    return sum(share * uniform for share, uniform in steps) / groups if groups else None


def _probe_mixed_share(metrics: list[dict]) -> float | None:
    """Share of the feed probe's groups with mixed outcomes (None without a probe)."""
    groups = sum(m.get("feed_probe_groups") or 0.0 for m in metrics)
    return sum(m.get("feed_probe_mixed") or 0.0 for m in metrics) / groups if groups else None


def _cpu_minutes(metrics: list[dict], key: str) -> float | None:
    seconds = _total(m.get(key) for m in metrics)
    return None if seconds is None else seconds / 60


def missing_arms(arms: dict) -> list[str]:
    """The compared arms (alice, static) a seed's raw arms lack."""
    return [name for name in ARMS if name not in arms]


def seed_summary(arms: dict) -> dict:
    missing = missing_arms(arms)
    if missing:
        raise ValueError(f"a seed lacks the {' and '.join(missing)} arm (give its raw run to --from-raw too)")
    figures = {name: arm_figures(arm) for name, arm in arms.items()}
    curves = {name: curve(arms[name]) for name in ARMS}
    static = figures["static"]
    # Only meaningful when the static arm lowered the penalty at all; otherwise step 0 "reaches" it.
    improved = static["penalty_after"] is not None and static["penalty_after"] < (static["penalty_before"] or 0)
    reach = next((p["step"] for p in curves["alice"] if p["penalty"] is not None
                  and p["penalty"] <= static["penalty_after"]), None) if improved else None
    steps = arms["alice"]["config"]["steps"]
    ratio = lambda a, b: None if a is None or not b else a / b  # noqa: E731
    return {
        "figures": figures, "curves": curves,
        "comparison": {"steps_to_static_penalty": reach, "steps_to_static_penalty_fraction": ratio(reach, steps),
                       # static lowered its penalty and ALICE's curve never got down to where it ended
                       "static_penalty_never_reached": improved and reach is None,
                       "zero_std_ratio": ratio(figures["alice"]["zero_std"], static["zero_std"]),
                       "uniform_ratio": ratio(figures["alice"]["uniform"], static["uniform"]),
                       "banked_solved_ratio": ratio(figures["alice"]["banked_solved"], static["banked_solved"])},
        "tables": {name: {k: {"accuracy": arms[name][k]["accuracy"], "control": arms[name][k]["control"],
                              "penalty": arms[name][k]["penalty"]} for k in ("before", "after")} for name in ARMS},
        # the GRPO steps, not a warm start's step-0 row
        "per_step": {name: [{k: m.get(k) for k in ("step", "reward", "accuracy", "frac_reward_zero_std",
                                                  "frac_outcome_uniform", "step_time")}
                            for m in arms[name]["metrics"] if (m.get("step") or 0) >= 1] for name in ARMS},
        "paraphrase_replies_after": {name: arms[name]["after"]["paraphrases"].get("replies") for name in ARMS},
        "config": arms["alice"]["config"], "final_levels": {name: arms[name]["final_levels"] for name in ARMS},
    }


def stats(values: list) -> dict:
    known = [v for v in values if v is not None]
    return {"mean": mean(known), "min": min(known) if known else None, "max": max(known) if known else None,
            "values": values}


def aggregate(per_seed: dict) -> dict:
    seeds = list(per_seed.values())
    keys = list(seeds[0]["figures"]["alice"])
    names = dict.fromkeys(name for s in seeds for name in s["figures"])  # an extra arm may miss some seeds
    out = {name: {key: stats([s["figures"].get(name, {}).get(key) for s in seeds]) for key in keys} for name in names}
    out["comparison"] = {key: stats([s["comparison"][key] for s in seeds]) for key in seeds[0]["comparison"]}
    return out


# The negation_arithmetic targets are on at least this many held-out tasks a cell; fewer is not a measurement
# of them (the held-out tasks of a cell are the same in every seed, so seeds do not add to the count).
NEGATION_TASKS_PER_CELL = 20
# The banked-failure targets are on the failures of a pre-training hunt of at least this many episodes; a
# shorter hunt banks a few dozen tasks, where one task moves the share by several points.
HUNT_EPISODES = 200


def targets(agg: dict, n_per_cell: int, hunt_episodes: int) -> list[dict]:
    """The issue's targets, each with the measured value and whether it was met (on the seed mean,
    or in every seed where the target says so); ``n_per_cell``: the held-out tasks of each cell;
    ``hunt_episodes``: the episodes of the hunt whose failures the banked rows replay."""
    a, c = agg["alice"], agg["comparison"]
    enough = n_per_cell >= NEGATION_TASKS_PER_CELL
    negation = f"on {n_per_cell} held-out tasks a cell" + ("" if enough else f", not ≥ {NEGATION_TASKS_PER_CELL}")
    long_hunt = hunt_episodes >= HUNT_EPISODES
    hunt = f"after a {hunt_episodes}-episode hunt" + ("" if long_hunt else f", not ≥ {HUNT_EPISODES}")
    if a["banked_after_warm_start"]["mean"]:  # the issue banks before training: these failures are another set
        long_hunt, hunt = False, hunt + ", played after the warm start, not before training"
    reach = c["steps_to_static_penalty_fraction"]["values"]
    never = sum(bool(v) for v in c.get("static_penalty_never_reached", {}).get("values", []))
    if never:  # a miss in those seeds, not "unmeasured"
        reach_value = f"never reached in {never} of {len(reach)} seeds"
    else:
        reach_value = None if None in reach or not reach else max(reach)
    rows = [
        ("distraction penalty (core families × easy/medium) reduced", "≥ 75 %", a["penalty_reduction"]["mean"],
         lambda v: v >= 0.75),
        (f"negation_arithmetic easy, {negation}", "≥ 0.85", a["negation_easy"]["mean"], lambda v: enough and v >= 0.85),
        (f"negation_arithmetic medium, {negation}", "≥ 0.60", a["negation_medium"]["mean"],
         lambda v: enough and v >= 0.60),
        ("worst control cell change", "≥ −0.05", a["control_worst_change"]["min"],
         lambda v: round(v, 9) >= -0.05),  # one task in 20 is exactly 0.05: not "more than 5 points"
        (f"banked failures solved after training (exact tasks), {hunt}", "≥ 70 %", a["banked_solved"]["mean"],
         lambda v: long_hunt and v >= 0.70),
        (f"banked solved, ALICE / static, {hunt}", "≥ 2×", c["banked_solved_ratio"]["mean"],
         lambda v: long_hunt and v >= 2),
        ("steps for ALICE to reach static's final penalty (fraction, worst seed)", "≤ 0.5 in every seed",
         reach_value, lambda v: not isinstance(v, str) and v <= 0.5),
        # TRL's frac_reward_zero_std is ~0 in both arms (the format bonus splits almost every group);
        # the share of groups with one outcome (all right or all wrong) is what the target is about.
        ("groups with one outcome (all right / all wrong), ALICE / static", "≤ 0.5", c["uniform_ratio"]["mean"],
         lambda v: v <= 0.5),
        ("paraphrase set correct", "≥ 60 %", a["paraphrase_correct_after"]["mean"], lambda v: v >= 0.60),
        ("paraphrase set echoes a distractor", "≤ 10 %", a["paraphrase_echo_after"]["mean"], lambda v: v <= 0.10),
        ("CPU-minutes of training (warm start + GRPO steps), worst arm and seed", "≤ 30",
         max((agg[arm]["training_cpu_minutes"]["max"] for arm in ARMS
              if agg[arm]["training_cpu_minutes"]["max"] is not None), default=None), lambda v: v <= 30),
    ]
    return [{"figure": f, "target": t, "value": v, "met": None if v is None else bool(ok(v))} for f, t, v, ok in rows]


RUN_KEYS = ("steps", "eval_n_per_cell", "curve_n_per_cell", "eval_every", "hunt_episodes", "paraphrases", "quick",
            "settings")


def run_meta(args) -> dict:
    """What a run was asked to do (kept with its raw arms, so a re-summary reports the same), with the whole
    shared ``TrainConfig`` it resolved to under ``config``: a later change of a default cannot make two raw runs
    look alike when they ran different settings (raw files written before this key cannot be merged with newer
    ones; runs before 2026-12-02's worked warm start default ran without a warm start)."""
    from alice_app.training.config import TrainConfig

    meta = {key: getattr(args, key, None) for key in RUN_KEYS}
    return {**meta, "config": TrainConfig.from_dict(args.settings).to_dict()}


def select_arms(raw: dict, arms: list[str], name: str = "the raw run") -> dict:
    """``raw`` with only ``arms`` in every seed; an arm no seed holds is refused."""
    held = {arm for seed_arms in raw["runs"].values() for arm in seed_arms}
    unknown = sorted(set(arms) - held)
    if unknown:
        raise ValueError(f"{name} holds no {', '.join(unknown)} arm (it has {', '.join(sorted(held))})")
    runs = {seed: {arm: data for arm, data in seed_arms.items() if arm in arms} for seed, seed_arms in raw["runs"].items()}
    return {**raw, "runs": {seed: seed_arms for seed, seed_arms in runs.items() if seed_arms}}


def static_only(raw: dict) -> bool:
    return {arm for arms in raw["runs"].values() for arm in arms} == {"static"}


def without_coevolve_settings(meta: dict) -> dict:
    """``meta`` without the settings a static arm never reads (``COEVOLVE_ONLY_FIELDS``), so a changed
    ALICE feed can be set beside an earlier run's static arms."""
    from alice_app.training.config import COEVOLVE_ONLY_FIELDS

    strip = lambda table: {k: v for k, v in (table or {}).items() if k not in COEVOLVE_ONLY_FIELDS}  # noqa: E731
    return {**meta, "settings": strip(meta.get("settings")), "config": strip(meta.get("config"))}


def with_added_fields(meta: dict) -> dict:
    """``meta`` with the ``TrainConfig`` fields added since it was saved (``ADDED_FIELDS``) filled in with the
    value its run actually had (the feature did not exist yet)."""
    from alice_app.training.config import ADDED_FIELDS

    return {**meta, "config": {**ADDED_FIELDS, **meta["config"]}} if "config" in meta else meta


def merge_raws(raws: list[dict]) -> dict:
    """One raw run from several saved ones (seeds or arms run on different days): they must have been
    asked the same thing (same meta; a raw of static arms only may differ in the settings only the
    co-evolving feed reads) and hold different (seed, arm) pairs; the meta of the first run with an
    arm other than static and the first step-time comparison are kept."""
    first = next((raw for raw in raws if not static_only(raw)), raws[0])  # its meta speaks for the merge
    for other in raws:
        mine, theirs = with_added_fields(first["meta"]), with_added_fields(other["meta"])
        if static_only(first) or static_only(other):
            mine, theirs = without_coevolve_settings(mine), without_coevolve_settings(theirs)
        differing = sorted(key for key in set(mine) | set(theirs) if mine.get(key) != theirs.get(key))
        if differing:
            raise ValueError(f"these raw runs were asked different things ({', '.join(differing)}); "
                             "only runs of the same settings can be summarized together")
    runs: dict = {}
    for raw in raws:
        for seed, arms in raw["runs"].items():
            repeated = sorted(set(runs.get(seed, {})) & set(arms))
            if repeated:
                raise ValueError(f"seed {seed}: the {', '.join(repeated)} arm is in more than one raw run")
            runs.setdefault(seed, {}).update(arms)
    walls = [raw.get("wall_seconds") for raw in raws]
    return {"meta": first["meta"], "runs": dict(sorted(runs.items(), key=lambda item: int(item[0]))),
            "overhead": next((raw["overhead"] for raw in raws if raw.get("overhead")), None),
            "wall_seconds": sum(walls) if None not in walls else None}


def summarize(runs: dict, overhead: dict, meta) -> dict:
    meta = meta if isinstance(meta, dict) else run_meta(meta)
    per_seed = {str(seed): seed_summary(arms) for seed, arms in runs.items()}
    agg = aggregate(per_seed)
    return {"steps_per_arm": meta["steps"], "seeds": [int(s) for s in per_seed],
            "eval_n_per_cell": meta["eval_n_per_cell"], "curve_n_per_cell": meta["curve_n_per_cell"],
            "eval_every": meta["eval_every"], "hunt_episodes": meta["hunt_episodes"], "quick": meta["quick"],
            "paraphrases_scored": meta.get("paraphrases") or "all", "shared_settings": meta["settings"],
            "config": next(iter(per_seed.values()))["config"], "aggregate": agg,
            "targets": targets(agg, meta["eval_n_per_cell"], meta["hunt_episodes"]),
            "per_seed": per_seed, "overhead": overhead}


# -- text ----------------------------------------------------------------------------------------
def fmt(value, spec=".2f") -> str:
    if isinstance(value, str):  # a measured outcome that is not a number ("never reached in 2 of 3 seeds")
        return value
    return "n/a" if value is None else format(value, spec)


def spread(stat: dict, spec=".2f") -> str:
    """"0.42" for one seed, "0.42 [0.30–0.50]" for several."""
    if stat["mean"] is None:
        return "n/a"
    if sum(v is not None for v in stat["values"]) < 2:
        return fmt(stat["mean"], spec)
    return f"{fmt(stat['mean'], spec)} [{fmt(stat['min'], spec)}–{fmt(stat['max'], spec)}]"


def cell_means(summary: dict, arm: str, when: str, key: str) -> dict:
    seeds = list(summary["per_seed"].values())
    first = seeds[0]["tables"][arm][when][key]
    return {f: {lv: mean(s["tables"][arm][when][key][f][lv] for s in seeds) for lv in row} for f, row in first.items()}


HEADLINES = [("distraction penalty, mean of core × easy/medium", "penalty", ".3f"),
             ("held-out accuracy, mean of all cells", "accuracy", ".3f"),
             ("paraphrase set: correct", "paraphrase_correct", ".2f"),
             ("paraphrase set: echoes a distractor", "paraphrase_echo", ".2f"),
             ("paraphrases of the trained families' ideas: correct", "paraphrase_trained", ".2f"),
             ("hand-written negations, odd count (named one ruled out): correct", "parity_odd", ".2f"),
             ("hand-written negations, even count (named one meant): correct", "parity_even", ".2f"),
             ("wrong answers that are a prompt number", "prompt_number", ".2f"),
             ("replies contradicting their own last result", "self_contradiction", ".2f"),
             ("hunt tasks solved at turn 1", "turn1", ".2f"), ("hunt tasks solved by turn 5", "by_turn5", ".2f"),
             ("failed hunt tasks whose 3 fresh variants are all solved", "variants", ".2f")]


def markdown_table(summary: dict) -> str:
    agg, steps, n = summary["aggregate"], summary["steps_per_arm"], len(summary["seeds"])
    head = f"ALICE, {steps} steps | static, {steps} steps"
    lines = [f"Seeds: {', '.join(map(str, summary['seeds']))} ({'mean [min–max]' if n > 1 else 'one seed'}); "
             f"{summary['eval_n_per_cell']} held-out tasks per cell.", "",
             f"| accuracy (easy / medium / hard) · penalty | before | {head} |", "|---|---|---|---|"]
    acc = {k: cell_means(summary, a, w, "accuracy") for k, (a, w) in
           {"b": ("alice", "before"), "a": ("alice", "after"), "s": ("static", "after")}.items()}
    pen = {k: cell_means(summary, a, w, "penalty") for k, (a, w) in
           {"b": ("alice", "before"), "a": ("alice", "after"), "s": ("static", "after")}.items()}
    for family in acc["b"]:
        def cell(k):
            text = " / ".join(f"{v:.2f}" for v in acc[k][family].values())
            return text + (" · " + " / ".join(f"{v:+.2f}" for v in pen[k][family].values()) if family in pen[k] else "")
        lines.append(f"| {family} | {cell('b')} | {cell('a')} | {cell('s')} |")
    lines += ["", f"| figure | before | {head} |", "|---|---|---|---|"]
    for label, key, spec in HEADLINES:
        if all(agg[arm][f"{key}_{when}"]["mean"] is None for arm in ARMS for when in ("before", "after")):
            continue  # a figure this run did not measure (raw runs from before it existed)
        lines.append(f"| {label} | {spread(agg['alice'][key + '_before'], spec)} | "
                     f"{spread(agg['alice'][key + '_after'], spec)} | {spread(agg['static'][key + '_after'], spec)} |")
    banked = ", banked after the warm start" if agg["alice"]["banked_after_warm_start"]["mean"] else ""
    lines.append(f"| banked failures solved (exact tasks, turn 1{banked}) | – | {spread(agg['alice']['banked_solved'])} | "
                 f"{spread(agg['static']['banked_solved'])} |")
    lines.append(f"| banked rows marked repaired by fresh variants | – | {spread(agg['alice']['repaired_share'])} | "
                 f"{spread(agg['static']['repaired_share'])} |")
    lines.append(f"| tasks that hunt solved at turn 1, still solved after | – | {spread(agg['alice']['kept_solved'])} | "
                 f"{spread(agg['static']['kept_solved'])} |")
    lines.append(f"| mean frac_reward_zero_std (TRL: equal rewards) | – | {spread(agg['alice']['zero_std'], '.3f')} | "
                 f"{spread(agg['static']['zero_std'], '.3f')} |")
    lines.append(f"| mean share of groups with one outcome | – | {spread(agg['alice']['uniform'], '.3f')} | "
                 f"{spread(agg['static']['uniform'], '.3f')} |")
    lines.append(f"| minutes in GRPO steps (one CPU thread per arm) | – | {spread(agg['alice']['step_minutes'], '.1f')} | "
                 f"{spread(agg['static']['step_minutes'], '.1f')} |")
    if any(agg[arm]["step_cpu_minutes"]["mean"] is not None for arm in ARMS):
        lines.append(f"| CPU-minutes in GRPO steps | – | {spread(agg['alice']['step_cpu_minutes'], '.1f')} | "
                     f"{spread(agg['static']['step_cpu_minutes'], '.1f')} |")
    lines += warm_start_table(summary)
    lines += self_correction_table(summary)
    lines += ["", "| target | wanted | measured | met |", "|---|---|---|---|"]
    for row in summary["targets"]:
        met = "n/a" if row["met"] is None else ("yes" if row["met"] else "**no**")
        lines.append(f"| {row['figure']} | {row['target']} | {fmt(row['value'], '.2f')} | {met} |")
    return "\n".join(lines) + "\n"


# The headline figures that arm_figures also measures right after the warm start ("warm_" + their key).
WARM_KEYS = ("penalty", "accuracy", "paraphrase_correct", "paraphrase_echo", "paraphrase_trained", "parity_odd",
             "parity_even", "turn1", "by_turn5", "variants")
WARM_FIGURES = [(label, f"warm_{key}", spec) for label, key, spec in HEADLINES if key in WARM_KEYS] + [
    ("minutes of warm start", "warm_start_minutes", ".1f"), ("CPU-minutes of warm start", "warm_start_cpu_minutes", ".1f")]


def warm_start_table(summary: dict) -> list[str]:
    """Each arm measured right after its warm start, before GRPO step 1: what the steps added (or lost) is
    the difference to the "after" column above. Only when the arms had a warm start."""
    agg = summary["aggregate"]
    if all(agg[arm]["warm_accuracy"]["mean"] is None for arm in ARMS):
        return []
    lines = ["", "| after the warm start, before GRPO step 1 | ALICE | static |", "|---|---|---|"]
    return lines + [f"| {label} | {spread(agg['alice'][key], spec)} | {spread(agg['static'][key], spec)} |"
                    for label, key, spec in WARM_FIGURES
                    if any(agg[arm][key]["mean"] is not None for arm in ARMS)]  # not measured by older raws: left out


def self_correction_table(summary: dict) -> list[str]:
    """Turn 1 vs by turn 5 of the hunt's tasks per arm: only when an episode-mode arm was trained."""
    agg = summary["aggregate"]
    if "episode" not in agg:
        return []
    lines = ["", "| hunt tasks solved: turn 1 → by turn 5 | seeds | before | after |", "|---|---|---|---|"]
    for name in (n for n in ARM_LABELS if n in agg):
        figures = agg[name]
        seeds = [seed for seed, value in zip(summary["seeds"], figures["turn1_after"]["values"]) if value is not None]
        lines.append(f"| {ARM_LABELS[name]} | {', '.join(map(str, seeds))} | "
                     f"{spread(figures['turn1_before'])} → {spread(figures['by_turn5_before'])} | "
                     f"{spread(figures['turn1_after'])} → {spread(figures['by_turn5_after'])} |")
    return lines


def print_table(summary: dict) -> None:
    print(f"\nlearning benchmark: {summary['steps_per_arm']} GRPO steps per arm, seeds {summary['seeds']}\n")
    print(markdown_table(summary))
    over = summary["overhead"]
    if over is None:
        print("step-time comparison skipped (--overhead-steps 0)")
        return
    print(f"step-time ratio (ALICE trainer / bare TRL GRPO, same prompts): {fmt(over['ratio'], '.3f')} "
          f"(median {over['median_alice']:.2f}s vs {over['median_bare']:.2f}s)")
