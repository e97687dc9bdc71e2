"""The environment on a real SQLite file with the real tasks, verifier, episode and curriculum."""
from pathlib import Path

import pytest

from alice_app.curriculum import CurriculumConfig
from alice_app.environment import MAX_ACTION_BYTES, AliceEnvironment, seed_from_task_id
from alice_app.store.curriculum import CurriculumStore
from alice_app.store.db import open_db
from alice_app.store.failures import FailureBank
from alice_app.tasks import generate_task
from alice_app.verify.stack import VerifierStack

FAMILY = "negation_arithmetic"


@pytest.fixture
def stores(tmp_path: Path):
    db = open_db(tmp_path / "alice.db")
    yield FailureBank(db), CurriculumStore(db)
    db.close()


def make_env(stores, **kwargs) -> AliceEnvironment:
    bank, curriculum = stores
    return AliceEnvironment(bank, curriculum, VerifierStack(), **kwargs)


def right(env: AliceEnvironment) -> str:
    return f"Answer: {env.episode.task.answer}"


def wrong(env: AliceEnvironment) -> str:
    return f"Answer: {int(env.episode.task.answer) + 1000}"


def test_five_wrong_turns_end_the_episode_and_bank_exactly_one_failure(stores):
    bank, curriculum = stores
    env = make_env(stores)
    obs = env.reset(seed=3, family=FAMILY, level="easy", mode="hunt")
    assert (obs.turn, obs.kind, obs.done, obs.reward, obs.hint) == (0, "attempt", False, None, None)
    assert obs.messages[-1] == {"role": "user", "content": obs.prompt}
    kinds = []
    for turn in range(1, 6):
        obs = env.step(f"Answer: {1000 + turn}")
        kinds.append(obs.kind)
        assert obs.turn == turn and obs.verdict["is_correct"] is False and obs.reward is not None
    assert kinds == ["feedback", "reflection", "hint", "final", None]
    assert obs.done and obs.hint == env.episode.task.hint and obs.info["solved"] is False
    page = bank.query()
    assert page.total == 1
    row = page.rows[0]
    assert row["id"] == obs.info["failure_id"] and row["response"] == "Answer: 1001"  # the unaided first attempt
    assert row["extracted"] == "1001" and row["source"] == "hunt" and row["mode"] == obs.info["failure_mode"]
    assert [turn["response"] for turn in row["history"]] == [f"Answer: {1000 + t}" for t in range(1, 6)]
    assert [turn["kind"] for turn in row["history"]] == ["attempt", "feedback", "reflection", "hint", "final"]
    assert bank.failure_map() == [{"family": FAMILY, "level": "easy", "failures": 1, "unique_failures": 1,
                                   "attempts": 1, "correct": 0, "failure_rate": 1.0}]
    assert curriculum.load([FAMILY])[FAMILY].outcomes == (False,)
    state = env.state
    assert state["done"] and not state["solved"] and state["turn"] == 5 and len(state["history"]) == 5
    assert len(state["rewards"]) == 5 and state["task"]["id"] == f"{FAMILY}/easy/3"
    with pytest.raises(ValueError, match="episode is over"):
        env.step("Answer: 1")


def test_a_solved_episode_ends_early_and_banks_nothing(stores):
    bank, curriculum = stores
    env = make_env(stores)
    env.reset(seed=4, family=FAMILY, level="easy", mode="hunt")
    env.step(wrong(env))
    obs = env.step(right(env))
    assert obs.done and obs.turn == 2 and obs.info["solved"] and not obs.info["first_attempt_correct"]
    assert obs.reward > env.state["rewards"][0]
    assert bank.count() == 0 and bank.failure_map()[0]["correct"] == 1
    assert curriculum.load([FAMILY])[FAMILY].outcomes == (False,)  # the unaided first attempt counts


def test_a_one_turn_episode_counts_and_banks_its_only_attempt(stores):
    bank, curriculum = stores
    env = make_env(stores)
    obs = env.reset(seed=3, family=FAMILY, level="easy", mode="hunt", turns=1)
    obs = env.step(wrong(env))
    assert obs.done and obs.turn == 1 and obs.kind is None and obs.info["solved"] is False
    assert obs.hint == env.episode.task.hint  # the episode is over, so its hint is shown
    assert bank.count() == 1 and bank.get(obs.info["failure_id"])["history"][0]["kind"] == "attempt"
    assert curriculum.load([FAMILY])[FAMILY].outcomes == (False,)
    env.reset(seed=5, family=FAMILY, level="easy", mode="hunt")  # the next reset plays five turns again
    assert not env.step(wrong(env)).done
    with pytest.raises(ValueError, match="1 to 5 turns"):
        env.reset(seed=3, family=FAMILY, level="easy", mode="hunt", turns=0)


def test_two_environments_do_not_share_state(stores):
    first, second = make_env(stores), make_env(stores)
    first.reset(seed=1, family=FAMILY, level="easy", mode="hunt")
    second.reset(seed=2, family="false_claim", level="medium", mode="hunt")
    first.step(wrong(first))
    assert first.state["turn"] == 1 and second.state["turn"] == 0
    assert second.state["task"]["id"] == "false_claim/medium/2"
    assert first.state["episode_id"] != second.state["episode_id"]
    assert make_env(stores).state == {"episode_id": None, "mode": None, "task": None, "turn": 0, "done": False,
                                      "solved": False, "rewards": [], "history": []}


def test_the_curriculum_promotes_and_survives_a_reopen(tmp_path):
    path = tmp_path / "alice.db"
    db = open_db(path)
    CurriculumStore(db).save_config(CurriculumConfig(window=2, min_samples=2, repair_mix=0.0))
    env = AliceEnvironment(FailureBank(db), CurriculumStore(db), VerifierStack(), rng_seed=0)
    for _ in range(2):
        env.reset(family=FAMILY, mode="hunt")
        obs = env.step(right(env))
    assert obs.info["level_before"] == "easy" and obs.info["level_after"] == "medium"
    db.close()
    reopened = open_db(path)
    env = AliceEnvironment(FailureBank(reopened), CurriculumStore(reopened), VerifierStack(), rng_seed=1)
    assert env.reset(family=FAMILY, mode="hunt").level == "medium"
    history = CurriculumStore(reopened).history(FAMILY)
    assert [h["level"] for h in history] == ["easy", "medium"]
    reopened.close()


def test_an_off_level_episode_leaves_the_curriculum_alone(stores):
    _, curriculum = stores
    env = make_env(stores)
    env.reset(seed=1, family=FAMILY, level="hard", mode="hunt")
    env.step(right(env))
    assert curriculum.load([FAMILY])[FAMILY].outcomes == () and curriculum.history() == []


@pytest.mark.parametrize("action, message", [(None, "a string"), (42, "a string"),
                                             ("x" * (MAX_ACTION_BYTES + 1), "64 KB")])
def test_bad_actions_are_refused_and_nothing_is_written(stores, action, message):
    bank, _ = stores
    env = make_env(stores)
    with pytest.raises(ValueError, match="reset"):
        env.step("Answer: 1")
    env.reset(seed=1, family=FAMILY, level="easy", mode="hunt")
    with pytest.raises(ValueError, match=message):
        env.step(action)
    assert env.state["turn"] == 0 and bank.count() == 0 and bank.failure_map() == []
    env.step("x" * (MAX_ACTION_BYTES - 20) + " Answer: 1")  # just under the limit is fine


def test_bad_reset_options_are_refused(stores):
    env = make_env(stores)
    with pytest.raises(ValueError, match="mode must be one of"):
        env.reset(mode="explore")
    with pytest.raises(ValueError, match="seed must be a whole number"):
        env.reset(seed="7")
    with pytest.raises(ValueError, match="unknown task family"):
        env.reset(family="nope")
    with pytest.raises(ValueError, match="level must be one of"):
        env.reset(family=FAMILY, level="impossible", mode="repair")


def test_seeds_make_resets_reproducible(stores):
    env = make_env(stores)
    assert env.reset(seed=7, family=FAMILY, level="medium", mode="hunt").task_id == f"{FAMILY}/medium/7"
    assert env.reset(seed=11, mode="hunt").task_id == env.reset(seed=11, mode="hunt").task_id
    assert len({env.reset(mode="hunt").task_id for _ in range(5)}) == 5


def test_a_given_task_is_played_as_is(stores):
    bank, _ = stores
    env = make_env(stores)
    task = generate_task("false_claim", "hard", 5)
    assert env.reset(task=task.to_dict()).task_id == task.id
    for _ in range(5):
        env.step("no idea")
    assert bank.query().rows[0]["source"] == "manual" and bank.query().rows[0]["mode"] == "format"
    with pytest.raises(ValueError, match="task must be a Task or a dict"):
        env.reset(task={"prompt": "What is 3 + 4?"})


def test_repair_plays_variants_of_banked_failures_until_repaired(stores):
    bank, _ = stores
    env = make_env(stores, rng_seed=5, repair_required=2)
    with pytest.raises(ValueError, match="no failures"):
        env.reset(mode="repair")
    original = generate_task(FAMILY, "easy", 9)
    failure_id = bank.record(original, "Answer: 12345", _verdict_for(original, "Answer: 12345"), mode="other")
    for expected_repaired in (False, True):
        obs = env.reset(mode="repair")
        assert obs.info["repair_of"] == failure_id and obs.info["mode"] == "repair"
        assert obs.family == FAMILY and obs.level == "easy" and obs.task_id != original.id
        obs = env.step(right(env))
        assert obs.info["repaired"] is expected_repaired
    assert bank.get(failure_id)["repaired"] is True and bank.get(failure_id)["repair_attempts"] == 2


def test_a_failed_repair_is_banked_as_a_repair_failure(stores):
    bank, _ = stores
    env = make_env(stores, rng_seed=2)
    original = generate_task(FAMILY, "easy", 9)
    failure_id = bank.record(original, "Answer: 12345", _verdict_for(original, "Answer: 12345"), mode="other")
    env.reset(mode="repair")
    for _ in range(5):
        obs = env.step(wrong(env))
    assert obs.info["repaired"] is False and bank.get(failure_id)["repair_attempts"] == 1
    assert bank.get(obs.info["failure_id"])["source"] == "repair"


def test_auto_mode_follows_repair_mix_and_falls_back_to_hunt(stores):
    bank, curriculum = stores
    env = make_env(stores, rng_seed=3)
    curriculum.save_config(CurriculumConfig(repair_mix=1.0))
    assert env.reset().info["mode"] == "hunt"  # nothing to repair yet
    original = generate_task(FAMILY, "easy", 9)
    bank.record(original, "Answer: 12345", _verdict_for(original, "Answer: 12345"), mode="other")
    assert {env.reset().info["mode"] for _ in range(5)} == {"repair"}
    curriculum.save_config(CurriculumConfig(repair_mix=0.0))
    assert {env.reset().info["mode"] for _ in range(5)} == {"hunt"}


def test_hunt_revisits_tasks_in_the_discrimination_zone(stores):
    _, curriculum = stores
    env = make_env(stores, rng_seed=4)
    curriculum.record_pass_rate(f"{FAMILY}/easy/424242", FAMILY, "easy", 2, 4)
    curriculum.record_pass_rate(f"{FAMILY}/easy/777", FAMILY, "easy", 4, 4)  # solved: not in the zone
    ids = [env.reset(family=FAMILY, mode="hunt").task_id for _ in range(40)]
    assert 8 <= ids.count(f"{FAMILY}/easy/424242") <= 32 and f"{FAMILY}/easy/777" not in ids


def test_seed_from_task_id():
    assert seed_from_task_id("f/easy/12") == 12
    assert seed_from_task_id("f/easy/12#abc") is None and seed_from_task_id("nonsense") is None


def _verdict_for(task, response):
    return VerifierStack().verify(task, response)


def test_ending_an_episode_writes_all_of_its_outcome_or_nothing(stores):
    bank, curriculum = stores

    class FailingBank(FailureBank):  # the disk fails at the last write of the episode
        def record(self, *args, **kwargs):
            raise OSError("disk full")

    env = AliceEnvironment(FailingBank(bank.db), curriculum, VerifierStack())
    env.reset(seed=3, family=FAMILY, level="easy", mode="hunt")
    for _ in range(4):
        env.step("Answer: 1001")
    with pytest.raises(OSError, match="disk full"):
        env.step("Answer: 1001")
    assert bank.failure_map() == [] and curriculum.load([FAMILY])[FAMILY].outcomes == ()


@pytest.mark.parametrize("seed", [2**63, 10**30])
def test_a_seed_beyond_the_bound_is_refused_before_anything_is_written(stores, seed):
    bank, _ = stores
    env = make_env(stores)
    with pytest.raises(ValueError, match=r"2\^63 - 1"):
        env.reset(seed=seed, family=FAMILY, level="easy", mode="hunt")
    task = generate_task(FAMILY, "easy", 1).to_dict() | {"seed": seed}
    with pytest.raises(ValueError, match=r"2\^63 - 1"):
        env.reset(task=task)
    assert bank.failure_map() == []


def test_samples_give_the_first_attempt_a_confidence_and_a_right_but_unstable_answer_is_banked(stores):
    bank, _ = stores
    env = make_env(stores)
    env.reset(seed=5, family=FAMILY, level="easy", mode="hunt")
    answer = int(env.episode.task.answer)
    spread = [f"Answer: {answer + d}" for d in (0, 3, 7, 11)]  # one of four samples agrees
    obs = env.step(right(env), samples=spread)
    assert obs.done and obs.verdict["is_correct"] and obs.verdict["tier"] == 3
    assert obs.verdict["confidence"] < 0.5 and obs.verdict["details"]["unstable"]
    assert obs.info["failure_mode"] == "unstable"
    row = bank.get(obs.info["failure_id"])
    assert row["mode"] == "unstable" and not row["verdict"]["is_correct"]


def test_samples_that_agree_bank_nothing(stores):
    bank, _ = stores
    env = make_env(stores)
    env.reset(seed=5, family=FAMILY, level="easy", mode="hunt")
    obs = env.step(right(env), samples=[right(env)] * 4)
    assert obs.done and obs.verdict["confidence"] == pytest.approx(1.0) and "failure_mode" not in obs.info
    assert bank.query(page_size=1).total == 0


@pytest.mark.parametrize(("samples", "needle"), [
    (["Answer: 1"], "2 to 16"), (["x"] * 17, "2 to 16"), ("Answer: 1", "not one string"),
    (["Answer: 1", "7" * (MAX_ACTION_BYTES + 1)], "64 KB"),
    (["7" * (MAX_ACTION_BYTES // 2)] * 3, "together"),
])
def test_bad_samples_are_refused_before_the_turn_counts(stores, samples, needle):
    env = make_env(stores)
    env.reset(seed=5, family=FAMILY, level="easy", mode="hunt")
    with pytest.raises(ValueError, match=needle):
        env.step(right(env), samples=samples)
    assert env.state["turn"] == 0


def test_a_free_wording_is_asked_where_the_family_offers_one(stores):
    env = make_env(stores, families=["false_claim", "rg_basic_arithmetic"])
    obs = env.reset(seed=4, family="false_claim", level="medium", mode="hunt", wording="free")
    assert obs.prompt == generate_task("false_claim", "medium", 4, wording="free").prompt
    assert "wording" not in env.episode.task.id.split("#")[0] and env.episode.task.id.startswith("false_claim/medium/4#")
    picked = {env.reset(seed=s, mode="hunt", wording="free").prompt == generate_task(
        env.episode.task.family, env.episode.task.level, env.episode.task.seed,
        **({"wording": "free"} if env.episode.task.family == "false_claim" else {})).prompt for s in range(12)}
    assert picked == {True}  # a family the curriculum picks without a free wording keeps its template
    with pytest.raises(ValueError, match="rg_basic_arithmetic has no free wording"):
        env.reset(seed=4, family="rg_basic_arithmetic", level="easy", mode="hunt", wording="free")
    with pytest.raises(ValueError, match="wording must be one of template, free"):
        env.reset(seed=4, wording="x" * 10_000)
