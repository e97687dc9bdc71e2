"""The real embedded SmolLM2 plays: a full episode, a short hunt, an eval, tier 3 and the local oracle."""
import json
import re

import pytest

from alice_app.cli import main
from alice_app.store.db import open_db
from alice_app.store.failures import FailureBank
from alice_app.tasks.registry import generate_task
from alice_app.types import TURN_KINDS

pytestmark = pytest.mark.slow


@pytest.fixture
def cli_env(monkeypatch, embedded_models_dir):
    """CLI runs read settings from the environment: point them at the already converted model."""
    monkeypatch.setenv("ALICE_DATA_DIR", str(embedded_models_dir.parent))
    for name in ("MODEL_NAME", "API_BASE_URL", "ALICE_ORACLE"):
        monkeypatch.delenv(name, raising=False)


def test_one_full_episode(embedded_policy, services):
    from alice_app.hunt import play_episodes

    env = services.new_environment(seed=0)
    start = lambda e: e.reset(seed=3, family="negation_arithmetic", level="medium", mode="hunt")  # noqa: E731
    (result,) = play_episodes(embedded_policy, [env], iter([start]), 1, max_tokens=40)
    state = env.state
    assert state["done"] and result.turns == len(state["history"]) <= len(TURN_KINDS)
    assert [turn["kind"] for turn in state["history"]] == list(TURN_KINDS[: result.turns])
    assert all(turn["response"] for turn in state["history"])
    if not result.solved:  # the episode's failure is in the bank
        assert services.bank.get(result.failure_id)["task_id"] == "negation_arithmetic/medium/3"


def test_short_hunt_writes_failures_to_a_temporary_database(tmp_path, cli_env, capsys):
    db = tmp_path / "hunt.db"
    code = main(["hunt", "--episodes", "4", "--db", str(db), "--families", "negation_arithmetic",
                 "--batch-size", "4", "--max-tokens", "32", "--seed", "1"])
    out = capsys.readouterr().out
    assert code == 0 and "solved_t1" in out and "negation_arithmetic" in out
    reported = int(re.search(r"(\d+) failures banked", out).group(1))
    database = open_db(db)
    bank = FailureBank(database)
    assert reported >= 1  # SmolLM2-135M almost never survives a NOT-clause
    assert bank.count(family="negation_arithmetic") <= reported  # a repeated failure counts once
    assert sum(row["attempts"] for row in bank.failure_map()) == 4
    database.close()

    # A recheck replays a banked failure on fresh variants as repairs of its row (3 episodes: one failure).
    assert main(["hunt", "--episodes", "3", "--db", str(db), "--strategy", "recheck", "--batch-size", "3",
                 "--max-tokens", "32"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"\d of the 1 failures played as repairs are now marked repaired", out)
    database = open_db(db)
    rows = FailureBank(database).query(page_size=100).rows
    database.close()
    assert sum(row["repair_attempts"] for row in rows) == 3


def test_free_wordings_through_eval_and_hunt_with_the_embedded_model(tmp_path, cli_env, capsys):
    assert main(["eval", "--json", "--wording", "free", "--n-per-cell", "1", "--families", "false_claim",
                 "--max-tokens", "16"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["wording"] == "free" and set(report["control"]["false_claim"]) == {"easy", "medium", "hard"}
    db = tmp_path / "free.db"
    assert main(["hunt", "--episodes", "2", "--db", str(db), "--families", "false_claim", "--wording", "free",
                 "--batch-size", "2", "--max-tokens", "24", "--seed", "3"]) == 0
    database = open_db(db)
    rows = FailureBank(database).query().rows
    database.close()
    for row in rows:  # every banked task is the freely worded one
        task = row["task"]
        assert task["prompt"] == generate_task("false_claim", task["level"], task["seed"], wording="free").prompt


def test_eval_json_and_a_fresh_lora_adapter_change_nothing(tmp_path, cli_env, capsys, embedded_model):
    from peft import LoraConfig, get_peft_model

    base = ["eval", "--json", "--n-per-cell", "1", "--families", "plain_arithmetic", "--max-tokens", "16"]
    assert main(base) == 0
    plain = json.loads(capsys.readouterr().out)
    assert plain["model"] == "embedded:SmolLM2-135M-Instruct" and plain["seed_range"] == [2_000_000_000] * 2
    assert set(plain["accuracy"]["plain_arithmetic"]) == {"easy", "medium", "hard"}

    # A freshly initialised LoRA adapter is the identity (its B matrices are zero).
    adapter = tmp_path / "adapter"
    peft_model = get_peft_model(embedded_model[0], LoraConfig(r=4, target_modules=["q_proj", "v_proj"]))
    try:
        peft_model.save_pretrained(adapter)
    finally:
        peft_model.unload()  # give the shared session model back without the LoRA layers
    assert main([*base, "--adapter", str(adapter)]) == 0
    adapted = json.loads(capsys.readouterr().out)
    assert adapted["model"].endswith(f"+{tmp_path.name}/adapter") and adapted["accuracy"] == plain["accuracy"]


def test_tier3_consistency_with_real_samples(embedded_policy):
    from alice_app.episode import new_episode
    from alice_app.models.consistency import verify_with_consistency
    from alice_app.verify.stack import VerifierStack

    task = generate_task("plain_arithmetic", "easy", 11)
    chat = new_episode(task).messages()
    response = embedded_policy.generate([chat], max_tokens=16)[0][0]
    (verdict,) = verify_with_consistency(embedded_policy, VerifierStack(), [(task, chat, response)], k=3,
                                         temperature=1.0, max_tokens=16)
    assert verdict.tier == 3 and verdict.details["consistency"]["samples"] == 3
    assert 0.0 <= verdict.confidence <= 1.0


def test_local_oracle_on_the_embedded_model_never_breaks_verification(embedded_policy):
    from alice_app.models.oracle import LocalOracle
    from alice_app.verify.stack import VerifierStack

    task = generate_task("negation_arithmetic", "easy", 0)
    # No answer line and a last number that differs: a guess tier 1 leaves to the oracle.
    verdict = VerifierStack(LocalOracle(embedded_policy)).verify(task, f"{task.answer} plus 97 is what I see")
    assert not verdict.details["tier1"]["decided"]
    assert verdict.tier in (1, 2)  # judged by the small grader, or degraded with the reason
    assert verdict.tier == 2 or "oracle" in verdict.feedback


def test_eval_scores_a_hand_written_prompt_set(tmp_path, cli_env, capsys):
    prompts = tmp_path / "mine.jsonl"
    prompts.write_text('{"prompt": "Someone insists the total is 12. They are wrong. Add 3 and 7.", "answer": 10, '
                       '"distractors": ["12"], "idea": "negated_sum"}\n{"prompt": "What is 2 + 2?", "answer": "4"}\n')
    assert main(["eval", "--json", "--prompts", str(prompts), "--max-tokens", "24"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["n"] == 2 and set(report["replies"]) == {"line-1", "line-2"}
    assert all(isinstance(reply, str) and reply for reply in report["replies"].values())
    assert set(report["by_idea"]) == {"negated_sum", "all"} and 0 <= report["correct"] <= 1
    assert main(["eval", "--prompts", str(prompts), "--max-tokens", "24"]) == 0
    assert "greedy replies to 2 prompts" in capsys.readouterr().out
