from alice_app.tasks.registry import generate_task
from alice_app.training.dpo import constructed_answer, export_dpo_dataset, load_dpo_dataset, verified_chosen


def _bank_failure(services, family, seed, response):
    task = generate_task(family, "easy", seed)
    return task, services.bank.record(task, response, services.verifier.verify(task, response))


def test_exported_pairs_round_trip_through_load_dataset(services, tmp_path):
    task, failure_id = _bank_failure(services, "negation_arithmetic", 4, "Answer: 999")
    _bank_failure(services, "plain_arithmetic", 5, "I do not know")
    path = tmp_path / "pairs" / "dpo.jsonl"
    assert export_dpo_dataset(services.bank, services.verifier, path) == 2
    dataset = load_dpo_dataset(path)
    assert dataset.num_rows == 2
    row = next(r for r in dataset if r["failure_id"] == failure_id)
    assert row["rejected"] == [{"role": "assistant", "content": "Answer: 999"}]
    assert row["chosen"] == [{"role": "assistant", "content": constructed_answer(task)}]
    assert row["prompt"][-1] == {"role": "user", "content": task.prompt}
    assert services.verifier.verify(task, row["chosen"][0]["content"]).is_correct


def test_export_filters_families_and_limits(services, tmp_path):
    _bank_failure(services, "negation_arithmetic", 1, "Answer: 999")
    _bank_failure(services, "plain_arithmetic", 2, "Answer: 999")
    path = tmp_path / "dpo.jsonl"
    assert export_dpo_dataset(services.bank, services.verifier, path, families=["plain_arithmetic"]) == 1
    assert export_dpo_dataset(services.bank, services.verifier, path, limit=1) == 1
    assert export_dpo_dataset(services.bank, services.verifier, path, families=["false_claim"]) == 0
    assert path.read_text() == ""


def test_chosen_prefers_a_verified_policy_sample_over_the_constructed_answer(services, fixed_samples):
    task = generate_task("negation_arithmetic", "easy", 8)
    sample = f"The NOT-clause is a distractor. Answer: {task.answer}"
    assert verified_chosen(task, services.verifier, fixed_samples(["Answer: 999", sample])) == sample
    assert verified_chosen(task, services.verifier, fixed_samples(["Answer: 999"])) == constructed_answer(task)
