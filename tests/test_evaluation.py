import pytest

from alice_app.config import HELD_OUT_SEED_START, TRAIN_SEED_LIMIT
from alice_app.episode import SYSTEM_PROMPT
from alice_app.evaluation import evaluate, held_out_tasks, mean_accuracy
from alice_app.tasks.registry import get_family


class KeyPolicy:
    """Answers right for the tasks in ``key`` (prompt → answer), wrong otherwise."""

    model_id = "key"

    def __init__(self, key):
        self.key, self.calls = key, []

    def generate(self, messages_batch, n=1, temperature=0.0, max_tokens=64):
        self.calls.append((len(messages_batch), n, temperature))
        return [[f"Answer: {self.key.get(chat[-1]['content'], 'no idea')}"] for chat in messages_batch]


def test_accuracy_per_family_and_level_on_held_out_seeds():
    tasks = held_out_tasks(["false_claim", "negation_arithmetic"], ("easy", "medium", "hard"), 4, HELD_OUT_SEED_START)
    assert all(task.seed >= HELD_OUT_SEED_START > TRAIN_SEED_LIMIT for task in tasks)
    # right on every false_claim task, and on half of the easy negation_arithmetic ones
    key = {t.prompt: t.answer for t in tasks if t.family == "false_claim"}
    key |= {t.prompt: t.answer for t in tasks if t.family == "negation_arithmetic" and t.level == "easy"
            and t.seed < HELD_OUT_SEED_START + 2}
    policy = KeyPolicy(key)
    table = evaluate(policy, ["false_claim", "negation_arithmetic"], n_per_cell=4)
    assert table == {"false_claim": {"easy": 1.0, "medium": 1.0, "hard": 1.0},
                     "negation_arithmetic": {"easy": 0.5, "medium": 0.0, "hard": 0.0}}
    assert mean_accuracy(table) == round(3.5 / 6, 4)
    assert all(n == 1 and temperature == 0.0 for _, n, temperature in policy.calls)  # greedy, one answer


def test_the_policy_sees_turn_one_of_an_episode():
    seen = []

    class Spy(KeyPolicy):
        def generate(self, messages_batch, **kwargs):
            seen.extend(messages_batch)
            return super().generate(messages_batch, **kwargs)

    evaluate(Spy({}), ["false_claim"], n_per_cell=1, levels=["easy"])
    task = held_out_tasks(["false_claim"], ["easy"], 1, HELD_OUT_SEED_START)[0]
    assert seen == [[{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": task.prompt}]]


def test_default_families_are_the_core_ones_and_their_control():
    import alice_app.challenger.family  # noqa: F401  (registers the challenger family, as the CLI does)
    from alice_app.tasks import core_family_names, default_families

    families = default_families()
    assert families == core_family_names() + ["plain_arithmetic"]
    assert "challenger" not in families and "rg_basic_arithmetic" not in families  # opt-in: no control twin
    assert all(get_family(name).scorer is None for name in families)


@pytest.mark.parametrize("kwargs, message", [
    ({"seed_start": 0}, "held out"),
    ({"n_per_cell": 0}, "--n-per-cell"),
    ({"families": ["nope"]}, "unknown task family"),
    ({"levels": ["expert"]}, "unknown level"),
    ({"wording": "poetic"}, "wording must be one of template, free"),
    ({"families": ["rg_basic_arithmetic"], "wording": "free"}, "rg_basic_arithmetic has no free wording"),
])
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        evaluate(KeyPolicy({}), **{"families": ["false_claim"], **kwargs})


def test_report_gives_control_accuracy_penalty_and_shortcuts():
    from alice_app.evaluation import evaluate_report
    from alice_app.tasks import control_of

    tasks = held_out_tasks(["negation_arithmetic", "false_claim"], ["easy"], 4, HELD_OUT_SEED_START)
    # every control twin right; the family tasks all answered with their first distractor
    key = {control_of(t).prompt: control_of(t).answer for t in tasks}
    key |= {t.prompt: t.metadata["distractors"][0] for t in tasks}
    report = evaluate_report(KeyPolicy(key), ["negation_arithmetic", "false_claim"], n_per_cell=4, levels=["easy"])
    assert report["accuracy"] == {"negation_arithmetic": {"easy": 0.0}, "false_claim": {"easy": 0.0}}
    assert report["control"] == {"negation_arithmetic": {"easy": 1.0}, "false_claim": {"easy": 1.0}}
    assert report["penalty"] == {"negation_arithmetic": {"easy": 1.0}, "false_claim": {"easy": 1.0}}
    assert report["mean_penalty"] == 1.0
    assert report["shortcuts"] == {"prompt_number": 1.0, "self_contradiction": 0.0}


def test_report_without_a_twin_family_has_no_penalty_and_shares_the_plain_tasks():
    from alice_app.evaluation import evaluate_report

    policy = KeyPolicy({})
    report = evaluate_report(policy, ["plain_arithmetic", "negation_arithmetic"], n_per_cell=2, levels=["easy"])
    assert set(report["penalty"]) == {"negation_arithmetic"}
    assert sum(size for size, _, _ in policy.calls) == 4  # the twins are the plain tasks: generated once
    assert evaluate_report(policy, ["plain_arithmetic"], n_per_cell=1, levels=["easy"])["mean_penalty"] is None


def test_eval_rows_show_control_and_penalty_per_level():
    from alice_app.cli.hunt import eval_rows

    report = {"accuracy": {"false_claim": {"easy": 0.25}, "plain_arithmetic": {"easy": 0.5}},
              "control": {"false_claim": {"easy": 0.75}}, "penalty": {"false_claim": {"easy": 0.5}}}
    assert eval_rows(report) == [{"family": "false_claim", "easy": "0.25", "easy control/penalty": "0.75/+0.50"},
                                 {"family": "plain_arithmetic", "easy": "0.50", "easy control/penalty": "-"}]


def test_with_twins_stores_twin_rows_and_the_penalty_comes_back_from_them():
    from alice_app.evaluation import evaluate_report, penalty_from_table, with_twins
    from alice_app.tasks import control_of

    tasks = held_out_tasks(["false_claim"], ["easy"], 2, HELD_OUT_SEED_START)
    key = {control_of(t).prompt: control_of(t).answer for t in tasks}
    report = evaluate_report(KeyPolicy(key), ["false_claim", "negation_arithmetic"], n_per_cell=2, levels=["easy"])
    table = with_twins(report)
    assert table["false_claim_control"] == {"easy": 1.0} and table["false_claim"] == {"easy": 0.0}
    assert table["plain_arithmetic"] == report["control"]["negation_arithmetic"]
    assert penalty_from_table(table) == report["penalty"] and report["penalty"]["false_claim"] == {"easy": 1.0}


def test_free_wording_asks_the_same_held_out_tasks_in_other_words_with_their_twins():
    from alice_app.evaluation import evaluate_report
    from alice_app.tasks.wordings import worded_families
    from alice_app.tasks import control_of

    assert worded_families() == ["distractor_order_of_ops", "double_negation", "exclusion_counting", "false_claim",
                                 "negated_comparison", "negation_arithmetic", "plain_arithmetic"]
    template = held_out_tasks(["false_claim"], ["easy", "hard"], 5, HELD_OUT_SEED_START)
    free = held_out_tasks(["false_claim"], ["easy", "hard"], 5, HELD_OUT_SEED_START, wording="free")
    assert [t.answer for t in free] == [t.answer for t in template]
    assert all(f.prompt != t.prompt for f, t in zip(free, template))
    asked = held_out_tasks(worded_families(), ["easy"], 5, HELD_OUT_SEED_START, wording="free")
    key = {control_of(t).prompt: control_of(t).answer for t in asked if t.family != "plain_arithmetic"}  # twins only
    report = evaluate_report(KeyPolicy(key), None, n_per_cell=5, levels=["easy"], wording="free")
    assert set(report["accuracy"]) == set(worded_families())
    assert report["penalty"]["false_claim"] == {"easy": 1.0} and report["control"]["negation_arithmetic"] == {"easy": 1.0}
