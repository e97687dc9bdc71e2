
import pytest

from alice_app.curriculum import CurriculumConfig, FamilyState
from alice_app.training.feed import LOOKAHEAD_WEIGHT, MIN_CELL_WEIGHT, CoevolvingFeed, static_items
from alice_app.training.rewards import GroupResult
from alice_app.types import LEVELS

FAMILIES = ["negation_arithmetic", "plain_arithmetic"]


def _feed(services, repair_mix=0.0, seed=0, families=FAMILIES, lookahead=1, zone_replay=0.25):
    services.curriculum.save_config(CurriculumConfig(repair_mix=repair_mix, window=8, min_samples=4))
    return CoevolvingFeed(families, services.curriculum, services.bank, seed=seed, lookahead=lookahead,
                          zone_replay=zone_replay)


def _hunted(feed, family="negation_arithmetic", level="easy", seed=7):
    """A hunt item at a chosen cell (the hunt itself may probe the level above)."""
    from alice_app.tasks.registry import generate_task

    return feed._item(generate_task(family, level, seed), "hunt")


def _group(services, item, correct: list[bool]):
    task = item.task
    responses = [f"Answer: {task.answer}" if ok else "Answer: 999999" for ok in correct]
    verdicts = tuple(services.verifier.verify(task, r) for r in responses)
    return GroupResult(task=task, source=item.source, failure_id=item.failure_id, responses=tuple(responses),
                       verdicts=verdicts)


def test_draws_live_hunt_tasks_at_the_curriculum_level_and_probes_the_next(services):
    services.curriculum.save(FamilyState("plain_arithmetic", level="hard"))
    feed = _feed(services)
    items = [feed.draw() for _ in range(40)]
    assert {i.source for i in items} == {"hunt"}
    assert {i.task.level for i in items if i.task.family == "plain_arithmetic"} == {"hard"}
    negation = [i.task.level for i in items if i.task.family == "negation_arithmetic"]
    assert set(negation) == {"easy", "medium"}  # the level above is probed, at a lower weight
    assert negation.count("easy") > negation.count("medium")
    row = items[0].to_row()
    assert set(row) == {"prompt", "task", "source", "failure_id", "turn_index", "previous_answers"}
    assert row["prompt"][0]["role"] == "system" and row["prompt"][-1]["content"] == items[0].task.prompt


def test_the_same_seed_draws_the_same_prompts(services, tmp_path):
    from alice_app.config import Settings
    from alice_app.services import Services

    other = Services.from_settings(Settings(data_dir=tmp_path / "b", db_path=tmp_path / "b" / "alice.db"))
    def ids(services):
        feed = _feed(services, seed=5)
        return [feed.draw().task.id for _ in range(5)]

    assert ids(services) == ids(other)
    other.close()


def test_observing_a_group_feeds_pass_rate_bank_and_curriculum(services):
    feed = _feed(services)
    item = _hunted(feed)
    feed.observe([_group(services, item, [True, False, False, True])])
    assert services.curriculum.pass_rate(item.task.id) == 0.5
    assert services.bank.query(family=item.task.family).total == 1  # the two identical wrong answers: one row
    assert services.bank.query().rows[0]["times_seen"] == 2
    state = services.curriculum.load([item.task.family])[item.task.family]
    assert state.outcomes == (True, False, False, True)
    assert feed.mixed_share(item.task.family, "easy") == 2 / 3  # one mixed group: (1 + 1) / (1 + 2)


def test_solved_families_are_promoted_and_fade_from_the_hunt(services):
    feed = _feed(services, families=["plain_arithmetic"])
    feed.observe([_group(services, _hunted(feed, "plain_arithmetic"), [True] * 4)])
    assert feed.level_of("plain_arithmetic") == "medium"  # 4/4 correct at easy (min_samples 4): promoted
    assert {feed.hunt_item().task.level for _ in range(10)} == {"medium", "hard"}
    for _ in range(5):
        feed.observe([_group(services, _hunted(feed, "plain_arithmetic", "medium"), [True] * 4)])
    assert feed.cell_weight("plain_arithmetic", "medium") < 0.4  # a solved cell fades ...
    assert feed.cell_weight("plain_arithmetic", "medium") >= MIN_CELL_WEIGHT  # ... but is still probed


def test_mixed_shares_are_smoothed_and_forget_old_groups(services):
    feed = _feed(services, families=["negation_arithmetic"])
    item = feed.hunt_item()
    cell = (item.task.family, item.task.level)
    assert feed.mixed_share(*cell) is None
    assert feed.cell_weight(*cell) == 1.0  # unmeasured: worth measuring
    feed.observe([_group(services, item, [False] * 4)])
    assert feed.mixed_share(*cell) == 1 / 3  # one uniform group does not retire a cell
    for _ in range(4):
        feed.observe([_group(services, item, [True, False, True, False])])
    assert feed.mixed_share(*cell) > 5 / 7  # above the undiscounted (4 + 1) / (5 + 2): recent groups win


def test_cells_are_weighted_by_their_share_of_mixed_groups_not_by_pass_rate(services):
    feed = _feed(services, families=["negation_arithmetic"])
    split = feed.hunt_item()  # half its groups solved k/k, half failed 0/k: a 50 % cell with no gradient
    for outcome in (True, False, True, False):
        feed.observe([_group(services, split, [outcome] * 4)])
    assert feed.cell_weight(split.task.family, split.task.level) < 0.3
    feed = _feed(services, families=["plain_arithmetic"])
    mixed = feed.hunt_item()  # 3 of 4 right in every group: each group teaches something
    for _ in range(4):
        feed.observe([_group(services, mixed, [True, True, True, False])])
    assert feed.cell_weight(mixed.task.family, mixed.task.level) > 0.75


def test_pinned_families_are_not_probed_above_their_level(services):
    services.curriculum.save(FamilyState("negation_arithmetic", level="easy", pinned="easy"))
    feed = _feed(services, families=["negation_arithmetic"])
    assert feed.frontier() == [("negation_arithmetic", "easy", 1.0)]
    services.curriculum.save(FamilyState("negation_arithmetic", level="easy"))
    feed = _feed(services, families=["negation_arithmetic"])
    assert feed.frontier() == [("negation_arithmetic", "easy", 1.0),
                               ("negation_arithmetic", "medium", LOOKAHEAD_WEIGHT)]


def test_tasks_measured_inside_the_zone_are_replayed(services):
    feed = _feed(services)
    assert feed.zone_item() is None
    item = feed.hunt_item()
    feed.known_tasks[item.task.id] = item.task
    feed.observe([_group(services, item, [True, False, True, False])])
    replays = [feed.zone_item() for _ in range(12)]
    replayed = [r for r in replays if r is not None]
    assert replayed and {r.task.id for r in replayed} == {item.task.id}
    assert {r.source for r in replayed} == {"zone"}


@pytest.mark.parametrize("share, zone_draws", [(0.0, 0), (1.0, 20)])
def test_the_zone_replay_share_sets_how_many_draws_replay(services, share, zone_draws):
    feed = _feed(services, families=["plain_arithmetic"], zone_replay=share)
    item = _hunted(feed, family="plain_arithmetic")  # at the curriculum level, where zone replay draws
    feed.known_tasks[item.task.id] = item.task
    feed.observe([_group(services, item, [True, False])])
    sources = []
    for _ in range(20):
        sources.append(feed.draw().source)
        feed.replays = {}  # the cap on replays of one task aside
    assert sources.count("zone") == zone_draws


def test_a_zone_replay_share_outside_zero_to_one_is_refused(services):
    with pytest.raises(ValueError, match="zone_replay must be a share between 0 and 1"):
        CoevolvingFeed(FAMILIES, services.curriculum, services.bank, zone_replay=1.5)


def test_banked_failures_become_repair_tasks_until_repaired(services):
    feed = _feed(services, repair_mix=1.0)
    hunted = feed.hunt_item()
    feed.observe([_group(services, hunted, [False, False])])
    failure = services.bank.query().rows[0]
    repairs = 0
    for _ in range(40):  # as the cell gets solved, some repair draws give way to hunts
        item = feed.draw()
        if item.source == "repair":
            assert item.failure_id == failure["id"]
            assert item.task.id != hunted.task.id and item.task.family == hunted.task.family
            feed.observe([_group(services, item, [True, True])])
            repairs += 1
        if repairs == 3:
            break
    assert repairs == 3 and services.bank.get(failure["id"])["repaired"]
    assert {feed.draw().source for _ in range(10)} == {"hunt"}  # nothing left to repair


def test_failures_of_a_mastered_cell_are_repaired_less_often(services):
    feed = _feed(services, repair_mix=1.0, families=["plain_arithmetic"])
    feed.observe([_group(services, _hunted(feed, "plain_arithmetic"), [False] * 4)])
    kept_while_failing = sum(feed.repair_item() is not None for _ in range(200))  # p ≈ 1/6: kept ~55 %
    for _ in range(12):  # since then the policy has solved every group of that cell
        feed.observe([_group(services, _hunted(feed, "plain_arithmetic", seed=8), [True] * 4)])
    kept_once_mastered = sum(feed.repair_item() is not None for _ in range(200))  # p ≈ 0.93: ~25 %
    assert 0 < kept_once_mastered < 80 < kept_while_failing


def test_static_items_cover_every_family_and_level_uniformly():
    items = static_items(FAMILIES, 12, seed=1)
    cells = sorted((i.task.family, i.task.level) for i in items)
    assert cells == sorted((f, lv) for f in FAMILIES for lv in LEVELS for _ in range(2))
    assert [i.task.id for i in items] == [i.task.id for i in static_items(FAMILIES, 12, seed=1)]
    assert {i.source for i in items} == {"static"}


def test_an_empty_family_list_is_refused(services):
    with pytest.raises(ValueError, match="at least one task family"):
        CoevolvingFeed([], services.curriculum, services.bank)


def test_lookahead_sets_how_many_harder_levels_the_feed_draws_from(services):
    services.curriculum.save(FamilyState("negation_arithmetic", level="easy"))
    cells = _feed(services, families=["negation_arithmetic"], lookahead=2).frontier()
    assert cells == [("negation_arithmetic", "easy", 1.0), ("negation_arithmetic", "medium", LOOKAHEAD_WEIGHT),
                     ("negation_arithmetic", "hard", LOOKAHEAD_WEIGHT ** 2)]
    assert _feed(services, families=["negation_arithmetic"], lookahead=0).frontier() == \
        [("negation_arithmetic", "easy", 1.0)]
    services.curriculum.save(FamilyState("negation_arithmetic", level="hard"))
    assert _feed(services, families=["negation_arithmetic"], lookahead=2).frontier() == \
        [("negation_arithmetic", "hard", 1.0)]
    with pytest.raises(ValueError, match="lookahead must be between 0 and 2"):
        _feed(services, lookahead=3)



class ScriptedPolicy:
    """Answers the first ``right[level]`` of a task's k samples right: a unit test's stand-in for the model."""

    def __init__(self, tasks, right: dict[str, int]):
        self.tasks = {task.prompt: task for task in tasks}  # task_messages asks the task's own prompt last
        self.right, self.calls = right, []

    def generate(self, messages_batch, n=1, temperature=0.0, max_tokens=64):
        self.calls.append(len(messages_batch))
        tasks = [self.tasks[messages[-1]["content"]] for messages in messages_batch]
        return [[f"Answer: {task.answer}" if i < self.right[task.level] else "Answer: 999999" for i in range(n)]
                for task in tasks]


def test_the_probe_measures_every_frontier_cell_before_the_first_draw(services):
    from alice_app.training.probe import probe_feed

    feed, unprobed = _feed(services, lookahead=1), _feed(services, lookahead=1)
    items = feed.probe_items(2)
    assert sorted({(i.task.family, i.task.level) for i in items}) == [(f, lv) for f in sorted(FAMILIES) for lv in
                                                                       ("easy", "medium")]
    feed.probe_items = lambda per_cell: items  # answer the items just inspected
    policy = ScriptedPolicy([item.task for item in items], {"easy": 4, "medium": 2})  # easy 4/4, medium 2/4
    report = probe_feed(feed, policy, services.verifier, per_cell=2, k=4, temperature=1.0, max_tokens=8)
    assert (report.groups, report.mixed, report.completions) == (8, 4, 32)
    assert policy.calls == [2, 2, 2, 2]  # two prompts a batch
    for family in FAMILIES:
        assert feed.mixed_share(family, "medium") > feed.mixed_share(family, "easy")
        # measured, an easy cell solved every time weighs less than the unmeasured prior it had before
        assert feed.cell_weight(family, "easy") < unprobed.cell_weight(family, "easy")
    assert {item.task.id for item in items} <= set(feed.known_tasks)  # zone replay may draw them
    assert services.bank.count() == 4  # each medium task's wrong answer banked (its two copies: one row)
