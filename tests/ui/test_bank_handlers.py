"""Failure-bank tab handlers on a real temporary SQLite bank."""
import json
from alice_app.ui import bank
from alice_app.ui import inputs

NO_FILTER = [inputs.ALL, inputs.ALL, inputs.ALL, "", inputs.ALL, "", "", ""]  # family .. search


def search(services, *filters, page=1, page_size=25):
    return bank.search(services, *(filters or NO_FILTER), page, page_size)


def test_query_filters_map_the_form():
    filters = bank.query_filters("neg", inputs.ALL, "format", " Review ", "unrepaired", "2026-11-01", "", " seven ")
    assert filters == {"family": "neg", "level": None, "mode": "format", "tag": "review", "repaired": False,
                       "since": "2026-11-01", "until": None, "search": "seven"}


def test_search_paginates_server_side(services, add_failures):
    add_failures(services, 30)
    rows, info, page = search(services, page=2, page_size=25)
    assert len(rows) == 5 and page == 2 and info == "Page 2 of 2 · 30 failures"


def test_search_clamps_a_page_past_the_end(services, add_failures):
    add_failures(services, 3)
    rows, info, page = search(services, page=9)
    assert page == 1 and len(rows) == 3


def test_search_filters_by_family_and_reports_bad_dates(services, add_failures):
    add_failures(services, 2)
    add_failures(services, 1, family="false_claim")
    rows, _, _ = search(services, "false_claim", *NO_FILTER[1:])
    assert [r[1] for r in rows] == ["false_claim"]
    table, message, page = search(services, inputs.ALL, inputs.ALL, inputs.ALL, "", inputs.ALL, "yesterday", "", "")
    assert "YYYY-MM-DD" in message


def test_open_failure(services, add_failures):
    [failure_id] = add_failures(services, 1)
    detail, notes, tags = bank.open_failure(services, failure_id)
    assert f"Failure #{failure_id}" in detail and notes == "" and tags == ""
    assert "no failure #999" in bank.open_failure(services, 999)[0]


def test_tags_round_trip_and_bulk(services, add_failures):
    ids = add_failures(services, 4)
    assert "Added review to 3 failures" in bank.change_tags(services, f"{ids[0]}-{ids[2]}", "Review", None)
    assert services.bank.query(tag="review").total == 3
    assert "Removed" in bank.change_tags(services, "", "review", ids[0], remove=True)
    assert services.bank.get(ids[0])["tags"] == []
    assert "not a failure id" in bank.change_tags(services, "1, x", "t", None)
    assert "at least one tag" in bank.change_tags(services, str(ids[0]), " , ", None)


def test_notes_persist(services, add_failures):
    [failure_id] = add_failures(services, 1)
    assert "saved" in bank.save_notes(services, failure_id, "echoes the distractor")
    assert services.bank.get(failure_id)["notes"] == "echoes the distractor"
    assert "Open a failure" in bank.save_notes(services, None, "x")


def test_mark_repaired(services, add_failures):
    ids = add_failures(services, 2)
    assert "Marked 2 failures as repaired" in bank.mark_repaired(services, ",".join(map(str, ids)), None)
    assert services.bank.query(repaired=True).total == 2
    bank.mark_repaired(services, "", ids[0], repaired=False)
    assert services.bank.get(ids[0])["repaired"] is False


def test_delete_needs_confirmation(services, add_failures):
    ids = add_failures(services, 2)
    assert "Tick **I confirm**" in bank.delete(services, str(ids[0]), None, False, "")
    assert services.bank.get(ids[0]) is not None
    assert "Deleted 1" in bank.delete(services, str(ids[0]), None, True, "")
    assert services.bank.get(ids[0]) is None


def test_delete_needs_the_admin_password_when_set(admin_services, add_failures):
    [failure_id] = add_failures(admin_services, 1)
    assert "admin password" in bank.delete(admin_services, str(failure_id), None, True, "guess")
    assert admin_services.bank.get(failure_id) is not None
    assert "Deleted 1" in bank.delete(admin_services, str(failure_id), None, True, "pw")


def test_export_jsonl_follows_the_filter(services, add_failures):
    add_failures(services, 3)
    add_failures(services, 2, family="false_claim")
    path, message = bank.export_jsonl(services, "false_claim", *NO_FILTER[1:])
    rows = [json.loads(line) for line in open(path, encoding="utf-8")]
    assert len(rows) == 2 and {r["family"] for r in rows} == {"false_claim"} and "2 failures" in message


def test_export_dpo_uses_training_or_says_it_is_missing(services, add_failures):
    add_failures(services, 2)
    path, message = bank.export_dpo(services)
    if bank.dpo_exporter() is None:
        assert path is None and "not available" in message
    else:
        lines = [json.loads(line) for line in open(path, encoding="utf-8")]
        assert lines and {"prompt", "chosen", "rejected"} <= set(lines[0])


def test_exports_get_private_folders_and_old_ones_are_removed():
    import os
    import time

    first = bank.export_path("failures.jsonl")
    first.write_text("{}\n")
    second = bank.export_path("failures.jsonl")
    assert first.parent != second.parent and first.parent.parent == second.parent.parent
    day_old = time.time() - bank.EXPORTS_KEPT_SECONDS - 60
    os.utime(first.parent, (day_old, day_old))
    bank.export_path("dpo_pairs.jsonl")
    assert not first.parent.exists() and second.parent.exists()
