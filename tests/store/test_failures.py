import json
from datetime import datetime, timedelta, timezone

import pytest

from alice_app.store.db import open_db
from alice_app.store.failures import FailureBank
from alice_app.types import Verdict


def test_record_keeps_every_documented_field(bank, make_task, wrong):
    task = make_task(seed=5)
    failure_id = bank.record(task, "It is 19. Answer: 19", wrong("19", "You answered 19"), mode="distractor_echo")
    row = bank.get(failure_id)
    assert row["task_id"] == task.id and row["family"] == task.family and row["level"] == "easy"
    assert row["seed"] == 5 and row["prompt"] == task.prompt and row["expected"] == task.answer
    assert row["response"] == "It is 19. Answer: 19" and row["extracted"] == "19"
    assert row["verdict"]["feedback"] == "You answered 19" and row["verdict"]["is_correct"] is False
    assert row["mode"] == "distractor_echo" and row["source"] == "hunt"
    assert row["times_seen"] == 1 and row["repaired"] is False and row["repair_successes"] == 0
    assert row["tags"] == [] and row["notes"] == ""
    assert row["task"] == task.to_dict()
    assert row["created_at"] == row["last_seen"] and row["created_at"].endswith("Z")
    assert bank.get(failure_id + 1) is None


def test_same_task_and_same_answer_is_one_failure_seen_twice(bank, make_task, wrong):
    first = bank.record(make_task(), "14", wrong("14"), mode="distractor_echo")
    second = bank.record(make_task(), "I think **14**", wrong("14"), mode="distractor_echo")
    other_answer = bank.record(make_task(), "12", wrong("12"), mode="other")
    other_task = bank.record(make_task(seed=2), "14", wrong("14"), mode="other")
    assert first == second and len({first, other_answer, other_task}) == 3
    row = bank.get(first)
    assert row["times_seen"] == 2 and row["last_seen"] >= row["created_at"]
    assert row["response"] == "14"  # the first wording is kept


def test_no_extracted_answer_dedupes_too(bank, make_task, wrong):
    assert bank.record(make_task(), "no idea", wrong(None), mode="format") == \
        bank.record(make_task(), "dunno", wrong(None), mode="format")


def test_record_rejects_correct_verdicts_and_unknown_modes(bank, make_task, wrong):
    with pytest.raises(ValueError, match="only failures"):
        bank.record(make_task(), "7", Verdict(True, 1.0, "ok", 1, "7"))
    with pytest.raises(ValueError, match="mode must be one of"):
        bank.record(make_task(), "14", wrong("14"), mode="bad_mode")
    assert bank.count() == 0


def test_record_without_mode_labels_the_failure(bank, make_task, wrong):
    failure_id = bank.record(make_task(seed=0), "14", wrong("14"))  # 14 is the distractor of seed 0
    assert bank.get(failure_id)["mode"] == "distractor_echo"


@pytest.fixture
def filled(bank, make_task, wrong):
    ids = {}
    for seed, family, level, mode, source in [
        (1, "negation_arithmetic", "easy", "distractor_echo", "hunt"),
        (2, "negation_arithmetic", "hard", "operator_confusion", "hunt"),
        (3, "false_claim", "easy", "distractor_echo", "repair"),
        (4, "false_claim", "medium", "off_by_one", "hunt"),
        (5, "double_negation", "easy", "format", "manual"),
    ]:
        ids[seed] = bank.record(make_task(seed, family, level), f"response {seed}", wrong(str(seed)), mode=mode,
                                source=source)
    return ids


def test_filters_combine(bank, filled):
    assert bank.query(family="negation_arithmetic").total == 2
    assert bank.query(family="negation_arithmetic", level="hard").total == 1
    assert bank.query(mode="distractor_echo").total == 2
    assert bank.query(family=["false_claim", "double_negation"]).total == 3
    assert bank.query(source="repair").total == 1
    bank.set_repaired([filled[1], filled[3]])
    assert {r["id"] for r in bank.query(repaired=True).rows} == {filled[1], filled[3]}
    assert bank.query(repaired=False, mode="distractor_echo").total == 0
    assert bank.query(family="nope").total == 0


def test_date_range_filters_on_last_seen(bank, filled):
    now = datetime.now(timezone.utc)
    assert bank.query(since=now - timedelta(minutes=5)).total == 5
    assert bank.query(until=now - timedelta(minutes=5)).total == 0
    assert bank.query(since=(now + timedelta(days=1)).date()).total == 0
    assert bank.query(until=now.date().isoformat()).total == 5  # a bare date includes the whole day
    with pytest.raises(ValueError, match="since/until"):
        bank.query(since="last tuesday")


def test_full_text_search_over_prompt_response_notes_and_tags(bank, filled):
    bank.set_notes(filled[2], "The model multiplied instead of adding")
    bank.add_tags([filled[4]], ["needs-review"])
    assert [r["id"] for r in bank.query(search="multiplied").rows] == [filled[2]]
    assert [r["id"] for r in bank.query(search="multi").rows] == [filled[2]]  # prefix match
    assert [r["id"] for r in bank.query(search="review").rows] == [filled[4]]
    assert [r["id"] for r in bank.query(search="response 3").rows] == [filled[3]]
    assert bank.query(search="NOT").total == 5  # the prompt; FTS operators are neutralised
    assert bank.query(search='"unbalanced (quote*').total == 0
    assert bank.query(search="multiplied", family="false_claim").total == 0
    assert bank.query(search="   ").total == 5


def test_pagination_is_newest_first_and_counts_everything(bank, make_task, wrong):
    ids = [bank.record(make_task(seed), "r", wrong(str(seed)), mode="other") for seed in range(23)]
    pages = [bank.query(page=p, page_size=10) for p in (1, 2, 3, 4)]
    assert [len(p.rows) for p in pages] == [10, 10, 3, 0]
    assert all(p.total == 23 and p.pages == 3 for p in pages)
    seen = [r["id"] for p in pages for r in p.rows]
    assert seen == sorted(ids, reverse=True)
    for bad in ({"page": 0}, {"page_size": 0}, {"page_size": 5000}):
        with pytest.raises(ValueError):
            bank.query(**bad)


def test_tags_and_notes_persist_across_a_reopen(db_path, make_task, wrong):
    bank = FailureBank(open_db(db_path))
    a = bank.record(make_task(1), "14", wrong("14"), mode="distractor_echo")
    b = bank.record(make_task(2), "15", wrong("15"), mode="distractor_echo")
    bank.add_tags([a, b], ["negation", " echo ", ""])
    bank.add_tags([a], "Echo")  # a string is one tag; tags are lowercase, duplicates ignored
    bank.remove_tags([b], ["echo"])
    bank.set_notes(a, "seen in the demo")
    bank.db.close()
    reopened = FailureBank(open_db(db_path))
    assert reopened.get(a)["tags"] == ["negation", "echo"] and reopened.get(b)["tags"] == ["negation"]
    assert reopened.get(a)["notes"] == "seen in the demo"
    assert reopened.query(tag="echo").total == 1 and reopened.query(tag="Negation ").total == 2
    assert reopened.tag_counts() == {"negation": 2, "echo": 1}
    with pytest.raises(ValueError, match="no failure with id"):
        reopened.set_notes(999, "x")
    with pytest.raises(ValueError, match="64 characters"):
        reopened.add_tags([a], ["x" * 65])


def test_repair_marks_after_the_required_solves_and_a_regression_unmarks(bank, make_task, wrong):
    failure_id = bank.record(make_task(), "14", wrong("14"), mode="distractor_echo")
    assert bank.record_repair_attempt(failure_id, solved=True, required=2) is False
    assert bank.record_repair_attempt(failure_id, solved=False, required=2) is False
    assert bank.record_repair_attempt(failure_id, solved=True, required=2) is True
    row = bank.get(failure_id)
    assert row["repaired"] is True and row["repair_successes"] == 2 and row["repair_attempts"] == 3
    assert bank.record_repair_attempt(12345, solved=True) is False  # deleted meanwhile
    bank.record(make_task(), "14 again", wrong("14"), mode="distractor_echo")  # the model relapsed
    row = bank.get(failure_id)
    assert row["repaired"] is False and row["repair_successes"] == 0 and row["times_seen"] == 2
    with pytest.raises(ValueError, match="required"):
        bank.record_repair_attempt(failure_id, True, required=0)


def test_set_repaired_and_delete_report_counts(bank, filled):
    assert bank.set_repaired(list(filled.values())[:2]) == 2
    assert bank.set_repaired([filled[1]], repaired=False) == 1
    assert bank.delete([filled[1], filled[2], 999]) == 2
    assert bank.count() == 3 and bank.get(filled[1]) is None


def test_count_by_and_failure_map_give_rates(bank, filled, make_task):
    assert bank.count_by("mode") == {"distractor_echo": 2, "format": 1, "off_by_one": 1, "operator_confusion": 1}
    assert bank.count_by("family")["negation_arithmetic"] == 2
    with pytest.raises(ValueError, match="count_by field"):
        bank.count_by("prompt; DROP TABLE failures")
    for correct in (True, True, False):
        bank.record_attempt(make_task(1, "negation_arithmetic", "easy"), correct)
    bank.record_attempt(make_task(9, "plain_arithmetic", "easy"), True)
    cells = {(c["family"], c["level"]): c for c in bank.failure_map()}
    easy = cells[("negation_arithmetic", "easy")]
    assert (easy["failures"], easy["attempts"], easy["correct"]) == (1, 3, 2)
    assert easy["failure_rate"] == pytest.approx(1 / 3)
    assert cells[("plain_arithmetic", "easy")]["failures"] == 0
    assert cells[("plain_arithmetic", "easy")]["failure_rate"] == 0
    assert cells[("false_claim", "medium")]["failure_rate"] is None  # banked, never counted


def test_repair_candidates_put_unrepaired_and_frequent_first(bank, filled, make_task, wrong):
    bank.record(make_task(4, "false_claim", "medium"), "again", wrong("4"), mode="off_by_one")
    bank.set_repaired([filled[5]])
    candidates = bank.repair_candidates()
    assert candidates[0]["id"] == filled[4] and candidates[-1]["id"] == filled[5]
    assert [c["family"] for c in bank.repair_candidates(family="false_claim")] == ["false_claim"] * 2
    assert len(bank.repair_candidates(limit=2)) == 2


def test_iter_rows_and_export_cover_every_matching_row(bank, make_task, wrong, tmp_path):
    for seed in range(1203):
        bank.record(make_task(seed), "r", wrong(str(seed)), mode="other")
    assert len(list(bank.iter_rows())) == 1203
    assert len(list(bank.iter_rows(batch_size=100, search="r"))) == 1203
    path = tmp_path / "bank.jsonl"
    assert bank.export_jsonl(path, level="easy") == 1203
    lines = path.read_text().splitlines()
    assert len(lines) == 1203 and json.loads(lines[0])["task"]["family"] == "negation_arithmetic"
    assert not (tmp_path / "bank.jsonl.tmp").exists()


def test_history_is_kept_and_a_repeat_keeps_the_latest_non_empty_one(bank, make_task, wrong):
    turns = [{"index": 1, "kind": "attempt", "response": "14"}]
    failure_id = bank.record(make_task(), "14", wrong("14"), mode="distractor_echo", history=turns)
    assert bank.get(failure_id)["history"] == turns
    bank.record(make_task(), "14", wrong("14"), mode="distractor_echo")  # e.g. from training: no episode
    assert bank.get(failure_id)["history"] == turns
    later = [*turns, {"index": 2, "kind": "feedback", "response": "Answer: 14"}]
    bank.record(make_task(), "14", wrong("14"), mode="distractor_echo", history=later)
    assert bank.get(failure_id)["history"] == later
