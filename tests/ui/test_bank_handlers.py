"""Failure-bank tab handlers on a real temporary SQLite bank."""
import json
import re
from types import SimpleNamespace

import pytest

from alice_app.tasks.registry import generate_task
from alice_app.ui import bank, exports
from alice_app.ui import formatting as fmt
from alice_app.ui import inputs

NO_FILTER = [inputs.ALL, inputs.ALL, inputs.ALL, "", inputs.ALL, "", "", "", bank.NOT_TRAINING]  # family .. source
REQUEST = SimpleNamespace(client=SimpleNamespace(host="203.0.113.9"))


def search(services, *filters, page=1, page_size=25):
    return bank.search(services, *(filters or NO_FILTER), page, page_size)


def test_query_filters_map_the_form():
    filters = bank.query_filters("neg", inputs.ALL, "format", " Review ", "unrepaired", "2026-11-01", "", " seven ",
                                 inputs.ALL)
    assert filters == {"family": "neg", "level": None, "mode": "format", "tag": "review", "repaired": False,
                       "since": "2026-11-01", "until": None, "search": "seven", "source": None}
    assert bank.query_filters(*NO_FILTER, known_sources=["hunt", "train"])["source"] == ["hunt"]


def test_search_paginates_server_side(services, add_failures):
    add_failures(services, 30)
    rows, info, page = search(services, page=2, page_size=25)
    assert len(rows) == 5 and page == "2" and info == "Page 2 of 2 · 30 failures"


def test_search_clamps_a_page_past_the_end(services, add_failures):
    add_failures(services, 3)
    for typed in (9, "1e20", "inf", "abc", "-5"):  # issue 14: none of these may end in a generic error
        rows, info, page = search(services, page=typed)
        assert page == "1" and len(rows) == 3


def test_a_page_that_is_not_a_number_shows_page_1_and_says_so(services, add_failures):
    add_failures(services, 3)
    rows, info, page = search(services, page="abc")
    assert page == "1" and len(rows) == 3
    assert info == "⚠ Page: 'abc' is not a number; showing page 1. · Page 1 of 1 · 3 failures"
    assert "whole number" in search(services, page="2.5")[1]
    assert "⚠" not in search(services, page="9")[1]  # past the end is the last page, not a mistake


def test_search_reports_bad_text_with_a_message(services, add_failures):
    add_failures(services, 1)
    _, message, _ = search(services, *NO_FILTER[:7], "a\x00b", bank.NOT_TRAINING)
    assert "control character" in message
    _, message, _ = search(services, *NO_FILTER[:7], "x" * 600, bank.NOT_TRAINING)
    assert "limited to 500" in message
    _, message, _ = search(services, *NO_FILTER[:3], "t" * 1_000_000, *NO_FILTER[4:])
    assert "Tag filter: a tag is at most 64 characters (got 1,000,000)" in message


def test_search_filters_by_family_and_reports_bad_dates(services, add_failures):
    add_failures(services, 2)
    add_failures(services, 1, family="false_claim")
    rows, _, _ = search(services, "false_claim", *NO_FILTER[1:])
    assert [r[1] for r in rows] == ["false_claim"]
    table, message, page = search(services, *NO_FILTER[:5], "yesterday", "", "", bank.NOT_TRAINING)
    assert "YYYY-MM-DD" in message


def test_training_failures_stay_out_of_the_default_view(services, add_failures):  # bug 7
    add_failures(services, 2)
    task = generate_task("negation_arithmetic", "easy", 99)
    services.bank.record(task, "junk", services.verifier.verify(task, "junk"), source="train")
    assert search(services)[1].endswith("2 failures")
    assert search(services, *NO_FILTER[:8], inputs.ALL)[1].endswith("3 failures")
    assert search(services, *NO_FILTER[:8], "train")[1].endswith("1 failure")
    assert "train" in bank.source_choices([]) and bank.source_choices([])[0] == bank.NOT_TRAINING


def test_only_training_failures_show_an_empty_default_view(services):
    task = generate_task("negation_arithmetic", "easy", 99)
    services.bank.record(task, "junk", services.verifier.verify(task, "junk"), source="train")
    assert search(services)[1] == fmt.NO_FAILURES


def test_open_failure_leaves_the_tags_box_alone(services, add_failures):  # bug 8
    [failure_id] = add_failures(services, 1)
    services.bank.add_tags([failure_id], ["keep", "drop"])
    out = bank.open_failure(services, failure_id)
    assert len(out) == 2 and f"Failure #{failure_id}" in out[0] and "`keep`" in out[0] and out[1] == ""
    assert "no failure #999" in bank.open_failure(services, 999)[0]
    assert "not an id" in bank.open_failure(services, "99999999999999999999")[0]


def test_tags_round_trip_and_bulk(services, add_failures):
    ids = add_failures(services, 4)
    assert "Added review to 3 failures" in bank.change_tags(services, f"{ids[0]}-{ids[2]}", "Review", None, "")
    assert services.bank.query(tag="review").total == 3
    assert "Removed" in bank.change_tags(services, "", "review", ids[0], "", remove=True)
    assert services.bank.get(ids[0])["tags"] == []
    assert "not a failure id" in bank.change_tags(services, "1, x", "t", None, "")
    assert "at least one tag" in bank.change_tags(services, str(ids[0]), " , ", None, "")
    assert "at most 64 characters" in bank.change_tags(services, str(ids[0]), "x" * 65, None, "")
    assert "At most 10,000" in bank.change_tags(services, "1-1000000000", "t", None, "")


def test_notes_persist(services, add_failures):
    [failure_id] = add_failures(services, 1)
    assert "saved" in bank.save_notes(services, failure_id, "echoes the distractor", "")
    assert services.bank.get(failure_id)["notes"] == "echoes the distractor"
    assert "Open a failure" in bank.save_notes(services, None, "x", "")


def test_mark_repaired_counts_only_rows_that_exist(services, add_failures):  # bug 5
    ids = add_failures(services, 2)
    assert bank.mark_repaired(services, ",".join(map(str, ids)), None, "") == "Marked 2 failures as repaired."
    assert services.bank.query(repaired=True).total == 2
    bank.mark_repaired(services, "", ids[0], "", repaired=False)
    assert services.bank.get(ids[0])["repaired"] is False
    assert bank.mark_repaired(services, "99", None, "") == "⚠ No failure with that id exists; nothing was marked."
    assert "(1 of the ids given do not exist)" in bank.mark_repaired(services, f"{ids[0]}, 99", None, "")


def test_delete_needs_confirmation(services, add_failures):
    ids = add_failures(services, 2)
    assert "Tick **I confirm**" in bank.delete(services, str(ids[0]), None, False, "")
    assert services.bank.get(ids[0]) is not None
    assert "Deleted 1" in bank.delete(services, str(ids[0]), None, True, "")
    assert services.bank.get(ids[0]) is None


def test_every_bank_write_needs_the_admin_password_when_set(admin_services, add_failures):  # issue 14.5
    [failure_id] = add_failures(admin_services, 1)
    one = str(failure_id)
    writes = [
        lambda pw, rq: bank.change_tags(admin_services, one, "t", None, pw, rq),
        lambda pw, rq: bank.change_tags(admin_services, one, "t", None, pw, rq, remove=True),
        lambda pw, rq: bank.save_notes(admin_services, failure_id, "n", pw, rq),
        lambda pw, rq: bank.mark_repaired(admin_services, one, None, pw, rq),
        lambda pw, rq: bank.mark_repaired(admin_services, one, None, pw, rq, repaired=False),
        lambda pw, rq: bank.delete(admin_services, one, None, True, pw, rq),
    ]
    for i, write in enumerate(writes):
        assert "needs the admin password" in write("guess", SimpleNamespace(client=SimpleNamespace(host=f"10.0.0.{i}")))
    row = admin_services.bank.get(failure_id)
    assert (row["tags"], row["notes"], row["repaired"]) == ([], "", False)
    for _ in range(5):
        writes[0]("guess", REQUEST)
    assert "Too many wrong admin passwords" in writes[0]("pw", REQUEST)  # rate-limited, even when right
    other = SimpleNamespace(client=SimpleNamespace(host="198.51.100.1"))
    assert "Added t" in bank.change_tags(admin_services, one, "t", None, "pw", other)
    assert "Deleted 1" in bank.delete(admin_services, one, None, True, "pw", other)


def test_export_jsonl_follows_the_filter(services, add_failures):
    add_failures(services, 3)
    add_failures(services, 2, family="false_claim")
    path, message = bank.export_jsonl(services, "false_claim", *NO_FILTER[1:])
    rows = [json.loads(line) for line in open(path, encoding="utf-8")]
    assert len(rows) == 2 and {r["family"] for r in rows} == {"false_claim"} and "2 failures" in message


def test_export_dpo_writes_pairs(services, add_failures):
    add_failures(services, 2)
    path, message = exports.export_dpo(services)
    lines = [json.loads(line) for line in open(path, encoding="utf-8")]
    assert lines and {"prompt", "chosen", "rejected"} <= set(lines[0]) and "DPO pairs" in message


def test_export_dpo_follows_the_filter(services, add_failures):
    kept, other = add_failures(services, 2)
    services.bank.add_tags([kept], ["review"])
    task = generate_task("negation_arithmetic", "easy", 99)
    services.bank.record(task, "Answer: 123456", services.verifier.verify(task, "Answer: 123456"), source="train")

    def exported(*form):
        path, message = bank.export_dpo(services, *form)
        return sorted(json.loads(line)["failure_id"] for line in open(path, encoding="utf-8")), message

    ids, message = exported(*NO_FILTER[:3], "review", *NO_FILTER[4:])  # the Tag filter
    assert ids == [kept] and "Exported 1 DPO" in message
    assert exported(*NO_FILTER)[0] == sorted([kept, other])  # training failures stay out, as in the table
    assert len(exported(*NO_FILTER[:8], inputs.ALL)[0]) == 3
    path, message = bank.export_dpo(services, *NO_FILTER[:5], "yesterday", *NO_FILTER[6:])
    assert path is None and "YYYY-MM-DD" in message


def test_the_failure_map_leaves_the_text_colour_to_the_theme(services, add_failures):
    add_failures(services, 2)  # white text on the top cell vanished on the plain cell Gradio draws when clicked
    html = bank.show_map(services, inputs.ALL, bank.NOT_TRAINING).to_html()
    assert "background-color: rgba(220, 38, 38" in html
    assert not re.search(r"(?<![-\w])color:", html)


def test_exports_get_private_folders_and_old_ones_are_removed():
    import os
    import time

    first = exports.export_path("failures.jsonl")
    first.write_text("{}\n")
    second = exports.export_path("failures.jsonl")
    assert first.parent != second.parent and first.parent.parent == second.parent.parent
    day_old = time.time() - exports.EXPORTS_KEPT_SECONDS - 60
    os.utime(first.parent, (day_old, day_old))
    exports.export_path("dpo_pairs.jsonl")
    assert not first.parent.exists() and second.parent.exists()


def test_only_the_newest_exports_are_kept_in_gradios_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path / "gradio"))  # a folder Gradio serves as it is, no copy
    made = []
    for _ in range(exports.EXPORTS_KEPT + 3):  # ten exports of a 100k-row bank were 1.8 GB, kept a day
        made.append(exports.export_path("failures.jsonl"))
        made[-1].write_text("{}\n")
    assert made[-1].parent.parent == tmp_path / "gradio" / "alice-exports"
    assert len(list(made[-1].parent.parent.iterdir())) == exports.EXPORTS_KEPT
    assert all(path.exists() for path in made[-exports.EXPORTS_KEPT:]) and not made[0].exists()


def test_the_password_limit_counts_the_address_the_proxy_saw(admin_services, add_failures):
    """Behind a proxy every visitor arrives from the proxy's address, and uvicorn's
    --forwarded-allow-ips '*' makes the client the first X-Forwarded-For entry, which it writes itself."""
    from dataclasses import replace

    admin_services.settings = replace(admin_services.settings, behind_proxy=True)
    [failure_id] = add_failures(admin_services, 1)

    def from_(first: str, proxy_saw: str):
        headers = {"x-forwarded-for": f"{first}, {proxy_saw}"}
        return SimpleNamespace(client=SimpleNamespace(host=first), headers=headers)

    for i in range(5):  # a new first entry each time: still one client
        bank.change_tags(admin_services, str(failure_id), "t", None, "guess", from_(f"1.1.1.{i}", "203.0.113.5"))
    assert "Too many" in bank.change_tags(admin_services, str(failure_id), "t", None, "pw",
                                          from_("1.1.1.9", "203.0.113.5"))
    assert "Added t" in bank.change_tags(admin_services, str(failure_id), "t", None, "pw",
                                         from_("1.1.1.9", "198.51.100.1"))


@pytest.mark.parametrize("ids", ["1-30000000", "1-1000000000"])
def test_huge_id_ranges_are_refused_before_expanding(services, ids):
    assert "At most 10,000" in bank.mark_repaired(services, ids, None, "")


class _Perfect:
    """Answers every first attempt right: the environments it plays in write each task's answer down."""

    model_id = "perfect"

    def __init__(self, services, monkeypatch):
        self.answers, original = {}, services.new_environment

        def new_environment(seed=None, source=None):
            env = original(seed, source)
            reset = env.reset

            def keyed_reset(*args, **kwargs):
                observation = reset(*args, **kwargs)
                self.answers[observation.prompt] = env.state["task"]["answer"]
                return observation

            env.reset = keyed_reset
            return env

        monkeypatch.setattr(services, "new_environment", new_environment)

    def generate(self, messages_batch, n=1, temperature=0.0, max_tokens=64):
        return [[f"Answer: {self.answers[chat[1]['content']]}"] * n for chat in messages_batch]


def test_recheck_marks_the_failures_the_model_now_solves_and_says_how_to_replay_it(services, add_failures,
                                                                                 monkeypatch):
    ids = add_failures(services, 3, family="false_claim")
    services.use_policy(_Perfect(services, monkeypatch))
    assert bank.model_choices(services) == [(bank.WORKBENCH_MODEL, "")]  # no completed run yet
    message = bank.recheck(services, "", 2, None, REQUEST, seed=11)
    newest = sorted(ids)[-2:]  # the newest unrepaired failures first
    assert f"Rechecked 2 failures (6 episodes, {bank.WORKBENCH_MODEL}): **2 now marked repaired**" in message
    assert all(f"#{i}" in message for i in newest) and "Still failing" not in message
    assert "hunt --strategy recheck --episodes 6 --seed 11`" in message and "--adapter" not in message
    assert services.bank.count(repaired=True) == 2 and services.bank.get(ids[0])["repaired"] is False


def test_recheck_reports_what_still_fails_and_refuses_bad_input_with_reasons(services, admin_services, add_failures):
    class Wrong:
        model_id = "wrong"

        def generate(self, messages_batch, n=1, temperature=0.0, max_tokens=64):
            return [["Answer: 123456"] * n for _ in messages_batch]

    assert bank.recheck(services, "", 1, None, REQUEST).startswith("⚠ the failure bank has no unrepaired failures")
    ids = add_failures(services, 1)
    services.use_policy(Wrong())
    message = bank.recheck(services, "", 1, None, REQUEST, seed=3)
    assert "**0 now marked repaired**." in message and f"Still failing a fresh variant: #{ids[0]}." in message
    for count, reason in ((0, "between 1 and 20"), (21, "between 1 and 20"), ("two", "not a number"),
                          (None, "is blank")):
        assert reason in bank.recheck(services, "", count, None, REQUEST)
    assert bank.recheck(services, "/tmp/not-a-run", 1, None, REQUEST).startswith("⚠ Choose a model from the list")
    add_failures(admin_services, 1)
    assert "password" in bank.recheck(admin_services, "", 1, "wrong", REQUEST).lower()
    assert admin_services.bank.count(repaired=True) == 0 and services.bank.count(repaired=True) == 0
