"""The hunt loop on a real Services (real SQLite bank, real environment and verifier).

The policy here is a scripted stand-in (the unit under test is the loop); the real embedded model
plays a hunt in tests/models/test_hunt_slow.py.
"""
import pytest

from alice_app.hunt import (
    RECHECK_VARIANTS,
    Archive,
    EpisodeResult,
    archive_rows,
    axis_rows,
    check_hunt_args,
    play_episodes,
    run_hunt,
    summary_rows,
)
from alice_app.services import Services
from alice_app.tasks.registry import generate_task


class ScriptedPolicy:
    """Answers every chat with ``answer(task_prompt)``; records the size of every batch."""

    model_id = "scripted"

    def __init__(self, answer):
        self.answer = answer
        self.batches: list[int] = []

    def generate(self, messages_batch, n=1, temperature=0.0, max_tokens=64):
        self.batches.append(len(messages_batch))
        return [[self.answer(chat[1]["content"])] * n for chat in messages_batch]


def always_wrong(prompt):
    return "Answer: 123456"


def test_random_hunt_batches_turns_and_banks_every_failure(services):
    policy = ScriptedPolicy(always_wrong)
    report = run_hunt(policy, services, 6, ["negation_arithmetic"], batch_size=4, seed=1)
    assert len(report.results) == 6 and report.failures == 6
    assert all(r.turns == 5 and not r.solved and r.failure_id for r in report.results)
    # 4 episodes side by side for 5 turns, then the last 2: one generate call per turn.
    assert policy.batches == [4] * 5 + [2] * 5
    assert services.bank.count(family="negation_arithmetic") == 6
    assert services.curriculum.load(["negation_arithmetic"])["negation_arithmetic"].outcomes


class AnswerKey:
    """Wraps Services so every task an environment starts is written into ``answers``."""

    def __init__(self, services):
        self.services, self.bank, self.answers = services, services.bank, {}

    def new_environment(self, seed=None):
        env, answers = self.services.new_environment(seed), self.answers
        original_reset = env.reset

        def reset(*args, **kwargs):
            observation = original_reset(*args, **kwargs)
            answers[observation.prompt] = env.state["task"]["answer"]
            return observation

        env.reset = reset
        return env


def test_solved_episodes_end_early_and_bank_nothing(services):
    keyed = AnswerKey(services)
    perfect = ScriptedPolicy(lambda prompt: f"Answer: {keyed.answers[prompt]}")
    report = run_hunt(perfect, keyed, 5, ["plain_arithmetic", "false_claim"], batch_size=5, seed=2)
    assert all(r.solved and r.turns == 1 and r.first_attempt_correct for r in report.results)
    assert perfect.batches == [5]
    assert services.bank.count() == 0
    rows = summary_rows(report)
    assert sum(row["solved_t1"] for row in rows) == 5 and all(row["banked"] == 0 for row in rows)


def test_mutate_hunt_fills_the_archive_with_failing_mutants(services):
    report = run_hunt(ScriptedPolicy(always_wrong), services, 12, ["negation_arithmetic", "false_claim"],
                      strategy="mutate", batch_size=3, seed=3)
    mutants = [r for r in report.results if "mutation" in r.task.metadata]
    assert len(report.results) == 12 and len(mutants) >= 9  # after the first batch, all mutants
    assert report.archive.cells and archive_rows(report.archive)
    assert sum(row["mutants"] for row in axis_rows(report.archive)) == len(mutants)
    assert all(row["survival"] == 1.0 for row in axis_rows(report.archive))  # this policy never recovers


def test_mutate_starts_from_banked_failures(services):
    run_hunt(ScriptedPolicy(always_wrong), services, 2, ["false_claim"], batch_size=2, seed=4)
    report = run_hunt(ScriptedPolicy(always_wrong), services, 2, ["false_claim"], strategy="mutate",
                      batch_size=2, seed=5)
    assert all("mutation" in r.task.metadata for r in report.results)


def _result(family, mode, solved_at=None):
    task = generate_task(family, "easy", 0)
    return EpisodeResult(task=_with_mutation(task), solved=solved_at is not None, turns=solved_at or 5,
                         first_attempt_correct=solved_at == 1, failure_mode=None if solved_at == 1 else mode,
                         failure_id=None)


def _with_mutation(task):
    from dataclasses import replace

    return replace(task, metadata={**task.metadata, "mutation": {"axis": "distractors", "from": 1, "to": 2}})


def test_archive_keeps_the_hardest_failure_per_cell_and_counts_survival():
    archive = Archive()
    assert archive.add(_result("false_claim", "distractor_echo", solved_at=3))  # fitness 0.4
    assert archive.add(_result("false_claim", "distractor_echo"))  # unsolved: fitness 1.0 replaces
    assert not archive.add(_result("false_claim", "distractor_echo", solved_at=2))  # weaker: kept out
    assert not archive.add(_result("false_claim", "other", solved_at=1))  # solved at once: not a failure
    cell = archive.cells[("false_claim", "easy", "distractor_echo")]
    assert (cell.fitness, cell.hits) == (1.0, 3)
    assert axis_rows(archive) == [{"axis": "distractors", "mutants": 4, "still_failing": 3, "survival": 0.75}]


@pytest.mark.parametrize("args, message", [
    ((0, None, "random", 8), "--episodes"),
    ((1, None, "greedy", 8), "strategy"),
    ((1, ["nope"], "random", 8), "unknown task family 'nope'"),
    ((1, None, "random", 0), "--batch-size"),
    ((1, ["rg_basic_arithmetic"], "random", 8, "free"), "rg_basic_arithmetic has no free wording"),
    ((1, None, "random", 8, "fancy"), "wording must be one of template, free"),
])
def test_bad_arguments(args, message):
    with pytest.raises(ValueError, match=message):
        check_hunt_args(*args)


def test_same_seed_replays_the_same_tasks(settings, tmp_path):
    from dataclasses import replace

    ids = []
    for name in ("a.db", "b.db"):
        services = Services.from_settings(replace(settings, db_path=tmp_path / name))
        report = run_hunt(ScriptedPolicy(always_wrong), services, 4, None, batch_size=2, seed=9)
        ids.append([r.task.id for r in report.results])
        services.close()
    assert ids[0] == ids[1]


def test_format_table_aligns_columns_and_clips_long_cells():
    from alice_app.cli.hunt import format_table

    table = format_table([{"family": "false_claim", "n": 3}, {"family": "x", "n": None}], clip=5)
    assert table.splitlines() == ["family  n", "------  -", "fals…   3", "x       -"]
    assert format_table([]) == "(no rows)"


class SpreadPolicy:
    """Greedy (temperature 0): the right answer; sampled: the ``spread`` answers, k of them."""

    model_id = "spread"

    def __init__(self, right, spread):
        self.right, self.spread = right, spread

    def generate(self, messages_batch, n=1, temperature=0.0, max_tokens=64):
        return [[self.right] * n if temperature == 0 else self.spread[:n] for _ in messages_batch]


def test_k_samples_give_first_attempts_a_tier3_verdict_and_the_environment_banks_the_unstable(services):
    task = generate_task("negation_arithmetic", "easy", 3)
    right = f"Answer: {task.answer}"
    hunt_start = lambda env: env.reset(seed=3, family="negation_arithmetic", level="easy", mode="hunt")  # noqa: E731

    def play(policy, samples):
        [result] = play_episodes(policy, [services.new_environment()], iter([hunt_start]), 1,
                                 samples=samples)
        return result

    unsteady = play(SpreadPolicy(right, [right, "Answer: 1", "Answer: 2", "Answer: 3", "Answer: 4"]), samples=5)
    assert unsteady.solved and unsteady.turns == 1 and unsteady.unstable and unsteady.confidence < 0.5
    row = services.bank.get(unsteady.failure_id)
    assert row["mode"] == "unstable" and row["task_id"] == task.id and row["source"] == "hunt"
    steady = play(SpreadPolicy(right, [right] * 5), samples=5)
    assert not steady.unstable and steady.confidence == 1.0 and steady.failure_id is None
    assert play(SpreadPolicy(right, []), samples=1).confidence is None  # no samples drawn: no tier 3
    assert services.bank.query(page_size=5).total == 1


def test_a_hunt_refuses_fewer_than_one_sample(services):
    with pytest.raises(ValueError, match="--samples must be at least 1"):
        run_hunt(ScriptedPolicy(always_wrong), services, 1, samples=0)


def test_a_hunt_in_free_wordings_banks_the_freely_worded_tasks(services):
    report = run_hunt(ScriptedPolicy(always_wrong), services, 3, ["false_claim"], batch_size=3, seed=4,
                      wording="free")
    for result in report.results:
        task = result.task
        assert task.prompt == generate_task(task.family, task.level, task.seed, wording="free").prompt
    assert {row["task"]["metadata"]["params"]["wording"] for row in services.bank.query().rows} == {"free"}


def test_recheck_plays_each_unrepaired_failure_on_fresh_variants_and_marks_it_repaired(services):
    run_hunt(ScriptedPolicy(always_wrong), services, 3, ["plain_arithmetic", "false_claim"], batch_size=3, seed=6)
    banked = {row["id"]: row["task"]["id"] for row in services.bank.query().rows}
    assert len(banked) == 3
    keyed = AnswerKey(services)
    perfect = ScriptedPolicy(lambda prompt: f"Answer: {keyed.answers[prompt]}")
    report = run_hunt(perfect, keyed, 100, strategy="recheck", batch_size=4, seed=7)
    assert len(report.results) == 3 * RECHECK_VARIANTS  # no more than the bank holds
    assert {r.repair_of for r in report.results} == set(banked)
    assert all(r.task.id not in banked.values() for r in report.results)  # fresh numbers, never the failed task
    assert all(r.first_attempt_correct and r.turns == 1 for r in report.results)
    third = {r.repair_of: r for r in report.results}  # each row's last variant played: its third solve
    assert all(r.repaired for r in third.values()) and sum(r.repaired for r in report.results) == 3
    assert report.repairs() == (3, 3) and services.bank.count(repaired=True) == 3
    assert all("solved_by_t5" not in row for row in summary_rows(report))  # first attempts only: no turn 5
    with pytest.raises(ValueError, match="no unrepaired failures to recheck"):  # all repaired now
        run_hunt(perfect, keyed, 3, strategy="recheck")


def test_a_recheck_that_fails_a_variant_leaves_the_failure_unrepaired(services):
    run_hunt(ScriptedPolicy(always_wrong), services, 2, ["false_claim"], batch_size=2, seed=8)
    keyed = AnswerKey(services)
    wrong_once = iter([True])  # the first variant played is answered wrong, every other one right
    policy = ScriptedPolicy(lambda prompt: "Answer: 123456" if next(wrong_once, False)
                            else f"Answer: {keyed.answers[prompt]}")
    report = run_hunt(policy, keyed, 5, ["false_claim"], strategy="recheck", batch_size=1, seed=9)
    assert len(report.results) == 5  # the episodes asked for, though 2 failures x 3 variants were planned
    failed = [r for r in report.results if not r.first_attempt_correct]
    assert len(failed) == 1 and failed[0].turns == 1  # first attempts only: no feedback or hint turns
    assert failed[0].failure_id is not None and services.bank.count() == 3  # banked, as any unsolved episode
    repaired, played = report.repairs()
    assert played == 2 and repaired == 0  # one failure lost a variant, the other got 2 of its 3
    assert services.bank.count(repaired=True) == 0


def test_recheck_on_an_empty_bank_says_so(services):
    with pytest.raises(ValueError, match="no unrepaired failures of false_claim to recheck"):
        run_hunt(ScriptedPolicy(always_wrong), services, 3, ["false_claim"], strategy="recheck")


def test_a_hunt_keeps_the_policys_prompts_while_it_plays_and_lets_go_after(services):
    from contextlib import contextmanager

    class KeepingPolicy(ScriptedPolicy):
        keeping, opened = False, 0

        @contextmanager
        def keeping_prompts(self):
            self.opened, self.keeping = self.opened + 1, True
            try:
                yield
            finally:
                self.keeping = False

        def generate(self, messages_batch, **kwargs):
            assert self.keeping  # every turn of every episode is asked inside the one block
            return super().generate(messages_batch, **kwargs)

    policy = KeepingPolicy(always_wrong)
    report = run_hunt(policy, services, 3, ["negation_arithmetic"], batch_size=2, seed=1)
    assert len(report.results) == 3 and policy.opened == 1 and not policy.keeping
