"""The Hub, offline: datasets and cards built from a real bank, read back with ``datasets``;
DPO exports hold only verifier-accepted answers; pushes fail clearly without the network;
bank merge folds several servers' databases."""
from __future__ import annotations

import json

import pytest
import yaml

from alice_app.cli import main
from alice_app.services import Services
from alice_app.tasks.reasoning_gym import ReasoningGymConfig, register_dataset
from alice_app.tasks.registry import generate_task

WRONG = {"plain_arithmetic": "Answer: 0", "negation_arithmetic": "Answer: 999"}


@pytest.fixture
def bank_env(settings, monkeypatch):
    """A database with real failures (two families + an open-answer reasoning-gym task), as ALICE_DB."""
    from alice_app.tasks import registry

    register_dataset("rgh_propositional_logic", ReasoningGymConfig(
        dataset="propositional_logic", levels={"easy": {}, "medium": {}, "hard": {}}), "test")
    monkeypatch.setenv("ALICE_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    services = Services.from_settings(settings)
    for family, response in [*WRONG.items(), ("rgh_propositional_logic", "Answer: None")]:
        for seed in range(3):
            task = generate_task(family, "easy", seed)
            verdict = services.verifier.verify(task, response)
            assert not verdict.is_correct
            services.bank.record(task, response, verdict, source="hunt")
    yield services
    services.close()
    registry._FAMILIES.pop("rgh_propositional_logic", None)


def front_matter(card: str) -> dict:
    return yaml.safe_load(card.split("---")[1])


def test_bank_export_parquet_round_trips_with_load_dataset(bank_env, tmp_path, capsys):
    from datasets import load_dataset

    assert main(["bank", "export", str(tmp_path / "ds"), "--format", "parquet"]) == 0
    data = load_dataset(str(tmp_path / "ds"), split="train")
    assert data.num_rows == 9
    assert {"task_id", "family", "response", "mode", "verdict", "history"} <= set(data.column_names)
    assert json.loads(data[0]["verdict"])["is_correct"] is False
    card = (tmp_path / "ds" / "README.md").read_text()
    meta = front_matter(card)
    assert meta["license"] == "apache-2.0" and meta["configs"][0]["data_files"][0]["path"].endswith(".parquet")
    assert "HuggingFaceTB/SmolLM2-135M-Instruct" in card and "## Failure modes" in card
    assert "| plain_arithmetic | 3 |" in card and "| negation_arithmetic | 3 |" in card


def test_dpo_export_holds_only_answers_the_verifier_accepts(bank_env, tmp_path):
    from alice_app.tasks.registry import generate_task as _  # noqa: F401  (families registered)
    from alice_app.types import Task

    path = tmp_path / "pairs.jsonl"
    assert main(["bank", "export", str(path), "--format", "dpo"]) == 0
    pairs = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(pairs) == 6  # the open-answer failures have no verified chosen answer: none exported
    for pair in pairs:
        chosen = pair["chosen"][0]["content"]
        assert chosen not in ("Answer: None", "Answer: ") and pair["family"] in WRONG
        row = bank_env.bank.get(pair["failure_id"])
        assert bank_env.verifier.verify(Task.from_dict(row["task"]), chosen).is_correct


def test_dpo_push_offline_keeps_a_loadable_folder_and_says_why(bank_env, tmp_path, capsys):
    from datasets import load_dataset

    folder = tmp_path / "dpo"
    assert main(["dpo", "push", "someone/alice-dpo", "--out", str(folder)]) == 1
    assert "HF_HUB_OFFLINE" in capsys.readouterr().err
    data = load_dataset(str(folder), split="train")
    assert data.num_rows == 6 and {"prompt", "chosen", "rejected"} <= set(data.column_names)
    assert "dpo" in front_matter((folder / "README.md").read_text())["tags"]


def test_bank_push_offline_says_why_and_a_bad_repo_id_is_refused(bank_env, capsys):
    assert main(["bank", "push", "someone/alice-failures", "--family", "plain_arithmetic"]) == 1
    assert "HF_HUB_OFFLINE" in capsys.readouterr().err
    assert (bank_env.settings.data_dir / "hub" / "alice-failures" / "README.md").is_file()
    assert main(["bank", "push", "no-slash"]) == 2


def test_adapter_card_holds_the_before_after_table(bank_env, tmp_path, capsys):
    runs = bank_env.runs
    run_id = runs.create("grpo", {"mode": "grpo", "steps": 2, "learning_rate": 1e-4})
    runs.save_eval(run_id, "before", {"plain_arithmetic": {"easy": 0.25}})
    runs.save_eval(run_id, "after", {"plain_arithmetic": {"easy": 0.5}})
    adapter = bank_env.settings.runs_dir / f"run-{run_id}" / "adapter"
    adapter.mkdir(parents=True)
    (adapter / "adapter_config.json").write_text(json.dumps({"peft_type": "LORA"}))
    (adapter / "adapter_model.safetensors").write_bytes(b"weights")
    folder = tmp_path / "model"
    assert main(["adapter", "push", str(run_id), "someone/alice-lora", "--out", str(folder)]) == 1
    card = (folder / "README.md").read_text()
    meta = front_matter(card)
    assert meta["library_name"] == "peft" and meta["base_model"] == "HuggingFaceTB/SmolLM2-135M-Instruct"
    assert "| plain_arithmetic | easy | 0.25 | 0.50 | +0.25 |" in card
    assert (folder / "adapter_model.safetensors").read_bytes() == b"weights"
    assert main(["adapter", "push", "999", "someone/x"]) == 2


def test_bank_merge_folds_replica_databases(bank_env, settings, tmp_path, capsys):
    replica = Services.from_settings(settings.with_overrides(db_path=tmp_path / "replica.db"))
    task, new = generate_task("plain_arithmetic", "easy", 0), generate_task("plain_arithmetic", "easy", 77)
    for t in (task, new):
        replica.bank.record(t, "Answer: 0", replica.verifier.verify(t, "Answer: 0"))
        replica.bank.record_attempt(t, False)
    replica.bank.add_tags([1], ["from-replica"])
    replica.close()
    assert main(["bank", "merge", str(tmp_path / "replica.db")]) == 0
    assert "2 failures, 1 new" in capsys.readouterr().err
    rows = {r["task_id"]: r for r in bank_env.bank.iter_rows(family="plain_arithmetic")}
    assert len(rows) == 4 and rows[task.id]["times_seen"] == 2 and rows[task.id]["tags"] == ["from-replica"]
    assert bank_env.bank.query(tag="from-replica").total == 1
    assert main(["bank", "merge", str(settings.db_path)]) == 2  # not into itself
    assert main(["bank", "merge", str(tmp_path / "missing.db")]) == 2
