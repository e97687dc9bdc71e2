"""Real training on the embedded model (slow): tiny runs, 2 generations of at most 16 tokens."""
import sqlite3

import pytest

from alice_app.tasks.registry import generate_task
from alice_app.training.config import TrainConfig
from alice_app.training.job import TrainingJob
from alice_app.training.rewards import FEED_SOURCES

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
TINY = dict(num_generations=2, prompts_per_step=1, max_completion_length=16, eval_n_per_cell=0, warm_start_prompts=0,
            families=("negation_arithmetic", "plain_arithmetic"), learning_rate=1e-3)


def _lora_b_norm(adapter_dir) -> float:
    from safetensors.torch import load_file

    weights = load_file(str(adapter_dir / "adapter_model.safetensors"))
    return sum(float(t.abs().sum()) for name, t in weights.items() if "lora_B" in name)


def completed_run(services, config: TrainConfig) -> dict:
    """Run ``config`` to its end in a real training job; the run's row, which must say completed."""
    job = TrainingJob(services)
    try:
        run_id = job.start(config)
        assert job.wait(600)
        run = services.runs.get(run_id)
        assert run["status"] == "completed", run["error"]
        return run
    finally:
        job.shutdown()


def test_cli_grpo_run_changes_the_lora_weights_and_records_everything(model_settings, monkeypatch, capsys):
    from alice_app.cli import main
    from alice_app.services import Services

    monkeypatch.setenv("ALICE_DATA_DIR", str(model_settings.data_dir))
    # plain_arithmetic: the model solves it often but not always, so groups have mixed rewards and
    # the LoRA update is non-zero (a group whose rewards are all equal has no gradient).
    argv = ["train", "--steps", "2", "--num-generations", "4", "--max-completion-length", "16",
            "--families", "plain_arithmetic", "--eval-n-per-cell", "1", "--learning-rate", "1e-3",
            "--wording-share", "0.5", "--working-bonus", "0.25", "--echo-penalty", "0.5",  # all reach the trainer
            "--warm-start-prompts", "4"]  # the default worked warm start, on 4 tasks
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "run 1: completed at step 2/2" in out and "plain_arithmetic" in out and "before" in out
    services = Services.from_settings(model_settings)
    run = services.runs.get(1)
    warm, *steps = services.runs.metrics(1)
    assert warm["step"] == 0 and warm["warm_start_prompts"] == 4 and warm["warm_start_samples"] == 0
    assert [m["step"] for m in steps] == [1, 2]
    assert {"loss", "reward", "accuracy", "frac_reward_zero_std", "frac_outcome_uniform", "own_operands", "echo",
            "lr", "step_time"} <= set(steps[0])
    # every group of a step came from one of the co-evolving feed's sources
    assert sum(steps[0].get(f"groups_{source}", 0.0) for source in FEED_SOURCES) == 1.0
    assert run["config"]["wording_share"] == 0.5 and run["config"]["working_bonus"] == 0.25
    assert run["config"]["echo_penalty"] == 0.5
    assert set(services.runs.evals(1)) == {"before", "after"}
    assert _lora_b_norm(model_settings.runs_dir / "run-1" / "adapter") > 0  # LoRA B starts at zero
    assert run["checkpoint"].endswith("adapter")
    assert services.db.execute("SELECT count(*) FROM pass_rates").fetchone()[0] >= 1
    services.close()


def test_job_starts_stops_and_resumes_a_real_run(model_services):
    stops = []

    def stop_after_first_step(step, total, metrics):
        if step == 1 and not stops:
            stops.append(job.stop())

    job = TrainingJob(model_services)
    run_id = job.start(TrainConfig(steps=3, checkpoint_every=1, **TINY), on_step=stop_after_first_step)
    assert job.wait(600)
    run = model_services.runs.get(run_id)
    assert stops == [True] and run["status"] == "stopped" and run["step"] == 1
    assert run["checkpoint"].endswith("checkpoint-1")
    job.resume(run_id)
    assert job.wait(600)
    run = model_services.runs.get(run_id)
    assert run["status"] == "completed", run["error"]
    assert [m["step"] for m in model_services.runs.metrics(run_id)] == [1, 2, 3]
    job.shutdown()


class ExplodingVerifier:
    def verify(self, task, response, samples=None):
        raise RuntimeError("verifier exploded mid-training")


def test_a_crash_inside_the_trainer_fails_the_run_and_keeps_the_database(model_services, model_settings):
    model_services.verifier = ExplodingVerifier()
    job = TrainingJob(model_services)
    run_id = job.start(TrainConfig(steps=2, **TINY))
    assert job.wait(600)
    run = model_services.runs.get(run_id)
    assert run["status"] == "failed" and "verifier exploded mid-training" in run["error"]
    with sqlite3.connect(model_settings.db_path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    job.shutdown()


def test_episode_mode_trains_the_final_attempt(model_services):
    run = completed_run(model_services, TrainConfig(mode="episode", steps=1, **TINY))
    assert len(model_services.runs.metrics(run["id"])) == 1


def test_dpo_run_on_banked_failures(model_services):
    for seed in range(3):
        task = generate_task("negation_arithmetic", "easy", seed)
        model_services.bank.record(task, "Answer: 999", model_services.verifier.verify(task, "Answer: 999"))
    run = completed_run(model_services, TrainConfig(mode="dpo", steps=2, **TINY))
    assert [m["step"] for m in model_services.runs.metrics(run["id"])] == [1, 2]
    assert (model_services.settings.runs_dir / f"run-{run['id']}" / "dpo_pairs.jsonl").is_file()


def test_a_warm_start_samples_fine_tunes_and_records_before_the_first_grpo_step(model_services):
    config = TrainConfig(steps=1, **{**TINY, "warm_start_prompts": 3, "warm_start_source": "samples",
                                     "num_generations": 4, "families": ("plain_arithmetic",),
                                     "rephrase_share": 0.0, "no_format_share": 0.0})  # asked with the format line
    run = completed_run(model_services, config)
    warm, step = model_services.runs.metrics(run["id"])
    assert warm["step"] == 0 and step["step"] == 1 and "loss" in step
    assert warm["warm_start_prompts"] == 3 and warm["warm_start_samples"] == 12
    # plain_arithmetic easy is solved ~75 % of the time: 4 samples almost surely hold a correct one
    assert 1 <= warm["warm_start_kept"] <= warm["warm_start_correct"] and warm["warm_start_steps"] >= 1


def test_a_worked_warm_start_fine_tunes_on_the_engines_solutions_without_sampling(model_services):
    failed = generate_task("negation_arithmetic", "medium", 9)
    model_services.bank.record(failed, "Answer: 0", model_services.verifier.verify(failed, "Answer: 0"),
                               mode="distractor_echo", source="test")
    config = TrainConfig(steps=1, **{**TINY, "warm_start_prompts": 2, "warm_start_repairs": 2,
                                     "families": ("negation_arithmetic",)})
    run = completed_run(model_services, config)
    warm, step = model_services.runs.metrics(run["id"])
    assert warm["step"] == 0 and step["step"] == 1
    # two tasks, each in its own wording, another phrasing and a free one, and two fresh variants of the banked
    # failure, each as it was asked: eight examples, two batches of four
    assert warm["warm_start_prompts"] == 4 and warm["warm_start_samples"] == 0
    assert warm["warm_start_kept"] == 8 and warm["warm_start_steps"] == 2
    assert warm["warm_start_mean_loss"] > 0


def test_the_feed_probe_answers_every_frontier_cell_after_the_warm_start_before_step_one(model_services):
    config = TrainConfig(steps=1, **{**TINY, "warm_start_prompts": 1, "feed_probe": 1,
                                     "families": ("negation_arithmetic",)})
    run = completed_run(model_services, config)
    warm, probe, step = model_services.runs.metrics(run["id"])
    assert "warm_start_kept" in warm and probe["step"] == 0 and step["step"] == 1  # the probe follows the warm start
    # one task of each of the three cells the feed may draw (easy, and two levels of lookahead), two answers each
    assert probe["feed_probe_groups"] == 3 and probe["feed_probe_completions"] == 6
    assert 0 <= probe["feed_probe_mixed"] <= 3 and probe["feed_probe_cpu_seconds"] > 0
    for level in ("easy", "medium", "hard"):  # the probe's groups were observed (step 1 adds one cell at most)
        assert model_services.curriculum.zone_tasks("negation_arithmetic", level, (0.0, 1.0)), level


def test_fine_tuning_learns_the_completion_and_not_the_prompt(model_settings):
    from peft import get_peft_model

    from alice_app.models.loader import load_causal_lm
    from alice_app.training.prompts import task_messages
    from alice_app.training.warm_start import Example, completion_loss, encode_batch, fine_tune

    model, tokenizer = load_causal_lm(model_settings, for_training=True)
    model = get_peft_model(model, TrainConfig().lora_config())
    messages = tuple(task_messages(generate_task("plain_arithmetic", "easy", 5)))
    examples = [Example(messages, "3 + 4 = 7.\nAnswer: 7"), Example(messages, "Answer: 7")]
    batch = encode_batch(tokenizer, examples, "cpu")
    taught = [tokenizer.decode([t for t in row if t != -100]) for row in batch["labels"].tolist()]
    assert taught == ["3 + 4 = 7.\nAnswer: 7" + tokenizer.eos_token, "Answer: 7" + tokenizer.eos_token]
    assert batch["attention_mask"][1].sum() < batch["attention_mask"][0].sum()  # right padding, masked
    assert abs(float(completion_loss(model, batch)) - float(model(**batch).loss)) < 1e-5
    losses = fine_tune(model, tokenizer, examples * 4, learning_rate=1e-3)
    assert len(losses) == 2 and losses[1] < losses[0]
    lora_b = sum(float(p.detach().abs().sum()) for name, p in model.named_parameters() if "lora_B" in name)
    assert lora_b > 0  # LoRA B starts at zero


def test_worked_replay_teaches_the_failed_tasks_after_each_real_grpo_step(model_services):
    config = TrainConfig(steps=2, **{**TINY, "families": ("negation_arithmetic",), "worked_replay": True})
    run = completed_run(model_services, config)
    steps = model_services.runs.metrics(run["id"])
    # 16 tokens rarely hold a worked negation answer: a group with a wrong completion, three wordings taught
    assert [m["step"] for m in steps] == [1, 2] and all("worked_replay" in m for m in steps)
    assert max(m["worked_replay"] for m in steps) >= 2 and run["config"]["worked_replay"] is True


def test_unsolved_only_worked_replay_teaches_after_exactly_the_steps_whose_group_was_all_wrong(model_services):
    config = TrainConfig(steps=3, **{**TINY, "num_generations": 4, "families": ("plain_arithmetic",),
                                     "worked_replay": True, "worked_replay_unsolved_only": True})
    run = completed_run(model_services, config)
    steps = model_services.runs.metrics(run["id"])
    assert [m["step"] for m in steps] == [1, 2, 3]
    # one prompt a step: its group had no correct completion exactly when the step's accuracy is 0
    assert [m["worked_replay"] > 0 for m in steps] == [m["accuracy"] == 0 for m in steps]


def test_worked_replay_moves_the_lora_weights_with_one_optimizer_across_steps(model_settings):
    from types import SimpleNamespace

    from peft import get_peft_model

    from alice_app.models.loader import load_causal_lm
    from alice_app.training.replay import WorkedReplay
    from alice_app.training.rewards import GroupResult
    from alice_app.verify.stack import VerifierStack

    model, tokenizer = load_causal_lm(model_settings, for_training=True)
    model = get_peft_model(model, TrainConfig().lora_config())
    replay = WorkedReplay(tokenizer, learning_rate=1e-3)
    task = generate_task("negation_arithmetic", "easy", 2)
    failed = GroupResult(task=task, source="zone", failure_id=None, responses=("Answer: 0",),
                         verdicts=(VerifierStack().verify(task, "Answer: 0"),))
    for _ in range(2):
        replay.observe([failed])
        replay.on_step_end(None, None, SimpleNamespace(), model=model)
    lora_b = sum(float(p.detach().abs().sum()) for name, p in model.named_parameters() if "lora_B" in name)
    assert lora_b > 0 and replay.pending == []  # LoRA B starts at zero
    assert {state["step"].item() for state in replay._optimizer.state.values()} == {2.0}  # one AdamW, two steps


def test_redrawing_drops_one_outcome_batches_of_a_real_grpo_run_and_counts_every_batch(model_services):
    config = TrainConfig(steps=3, **{**TINY, "families": ("plain_arithmetic",), "max_completion_length": 2,
                                     "redraw_uniform": 2})
    run = completed_run(model_services, config)
    steps = model_services.runs.metrics(run["id"])
    assert [m["step"] for m in steps] == [1, 2, 3] and run["config"]["redraw_uniform"] == 2
    for m in steps:
        redraws, kept_uniform = m["redraws"], m["uniform_trained"]
        assert redraws in (0, 1, 2) and (redraws == 2 or kept_uniform == 0)  # it stops early only on a mixed batch
        # one prompt a batch: every dropped batch had one outcome, and the step's share averages over all it drew
        assert m["frac_outcome_uniform"] == pytest.approx((redraws + kept_uniform) / (redraws + 1))
    assert sum(m["redraws"] for m in steps) > 0  # two tokens rarely hold a right answer: batches were redrawn
