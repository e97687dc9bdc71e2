"""`python -m alice_app` engine commands, run as a user would: in a subprocess."""
import json
import os
import subprocess
import sys

import pytest

from alice_app.store.db import open_db
from alice_app.store.failures import FailureBank
from alice_app.tasks import generate_task
from alice_app.verify.stack import VerifierStack


def cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "alice_app", *args], capture_output=True, text=True,
                          timeout=120, env={**os.environ, **(env or {})})


def test_tasks_prints_one_json_object_per_seed():
    out = cli("tasks", "--family", "negation_arithmetic", "--level", "medium", "--seed", "5", "--n", "3")
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["seed"] for r in rows] == [5, 6, 7]
    for row in rows:
        assert {"id", "family", "level", "seed", "prompt", "answer", "hint"} <= set(row)
        assert row == generate_task("negation_arithmetic", "medium", row["seed"]).to_dict()


def test_verify_prints_the_verdict():
    task = generate_task("false_claim", "easy", 3)
    args = ("verify", "--family", "false_claim", "--level", "easy", "--seed", "3", "--response")
    good, bad = cli(*args, f"Answer: {task.answer}"), cli(*args, f"Answer: {int(task.answer) + 1}")
    assert good.returncode == bad.returncode == 0
    good, bad = json.loads(good.stdout), json.loads(bad.stdout)
    assert good["is_correct"] is True and bad["is_correct"] is False
    assert {"is_correct", "confidence", "feedback", "tier"} <= set(good) and good["expected"] == task.answer


def test_families_lists_names_core_flags_and_descriptions():
    out = cli("families")
    rows = {r["name"]: r for r in map(json.loads, out.stdout.splitlines())}
    assert rows["negation_arithmetic"]["core"] is True and rows["plain_arithmetic"]["core"] is False
    assert all(r["description"] for r in rows.values())


@pytest.mark.parametrize("args", [
    ("tasks", "--family", "nope", "--level", "easy"),
    ("tasks", "--family", "negation_arithmetic", "--level", "extreme"),
    ("tasks", "--family", "negation_arithmetic", "--level", "easy", "--n", "0"),
    ("tasks", "--family", "negation_arithmetic", "--level", "easy", "--seed", "-1"),
    ("verify", "--family", "negation_arithmetic", "--level", "easy"),
])
def test_bad_arguments_give_one_line_and_exit_code_2(args):
    out = cli(*args)
    assert out.returncode == 2 and out.stdout == ""
    assert len(out.stderr.strip().splitlines()) == 1 and out.stderr.startswith("error:")


def test_bank_list_and_export_read_the_database_in_alice_db(tmp_path):
    path = tmp_path / "alice.db"
    bank = FailureBank(open_db(path))
    for seed in range(3):
        task = generate_task("negation_arithmetic", "easy", seed)
        bank.record(task, "Answer: 99999", VerifierStack().verify(task, "Answer: 99999"), mode="other")
    bank.db.close()
    env = {"ALICE_DB": str(path)}
    listed = cli("bank", "list", "--page-size", "2", env=env)
    assert listed.returncode == 0 and len(listed.stdout.splitlines()) == 2 and "3 failures" in listed.stderr
    export = tmp_path / "out.jsonl"
    assert cli("bank", "export", str(export), "--family", "negation_arithmetic", env=env).returncode == 0
    assert [json.loads(line)["seed"] for line in export.read_text().splitlines()] == [0, 1, 2]
    notes = tmp_path / "notes.txt"
    notes.write_text("not a database")
    refused = cli("bank", "list", env={"ALICE_DB": str(notes)})
    assert refused.returncode == 2 and "not a usable ALICE database" in refused.stderr
    assert notes.read_text() == "not a database"
