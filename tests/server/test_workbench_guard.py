"""The workbench at /web on a public deployment: bounded request bodies, no uploads, a queue that one
client cannot fill, and episode play that spends the same write budget as /reset and /step."""
from __future__ import annotations

import json
import time
from types import SimpleNamespace

import httpx
import pytest
from fastapi import HTTPException

from alice_app.server import workbench_guard
from alice_app.server.asgi import UI_PATH, create_app
from alice_app.server.guard import (MAX_PENDING_PER_CLIENT, MAX_QUEUED_EVENTS, MAX_UI_BODY_BYTES, MAX_UI_SESSIONS,
                                   WriteBudget)
from alice_app.services import Services
from tests.server.conftest import running_server

WRITES_PER_MINUTE = 6
NO_FILTER = ["(all)"] * 3 + [""] + ["(all)", "", "", "", "(all)"]  # family .. source, as the bank tab's filters
API = UI_PATH + "/gradio_api"


def slow_rows(*args, **kwargs):
    """The bank read by an export, slowed down, so that exports stay in the queue."""
    time.sleep(2)
    yield from ()


@pytest.fixture(scope="module")
def workbench(tmp_path_factory):
    """A server with the workbench, behind a proxy (clients told apart by X-Forwarded-For)."""
    from alice_app.config import Settings

    data = tmp_path_factory.mktemp("workbench") / "data"
    settings = Settings(data_dir=data, db_path=data / "alice.db", behind_proxy=True,
                        writes_per_minute=WRITES_PER_MINUTE)
    services = Services.from_settings(settings)
    services.bank.iter_rows = slow_rows
    app = create_app(services)
    with running_server(app) as url, httpx.Client(base_url=url, timeout=30) as http:
        http.server_app = app
        http.fns = {dep["api_name"]: dep["id"] for dep in http.get(UI_PATH + "/config").json()["dependencies"]}
        yield http
    services.close()


def join(http, api_name, data, session, client) -> httpx.Response:
    body = {"data": data, "fn_index": http.fns[api_name], "session_hash": session, "event_data": None}
    return http.post(API + "/queue/join", json=body, headers={"x-forwarded-for": client})


def call(http, api_name, data, session, client) -> dict:
    """Join the queue and read the event's result from the event stream."""
    assert join(http, api_name, data, session, client).status_code == 200
    with http.stream("GET", API + "/queue/data", params={"session_hash": session}) as stream:
        for line in stream.iter_lines():
            message = json.loads(line[5:]) if line.startswith("data:") else {}
            if message.get("msg") == "process_completed":
                return message["output"]
    raise AssertionError("the event never completed")


def test_a_body_over_the_workbench_limit_is_refused_before_it_is_read(workbench):
    body = {"data": [None, "7" * (MAX_UI_BODY_BYTES + 1)], "fn_index": workbench.fns["answer"], "session_hash": "big"}
    refused = workbench.post(API + "/queue/join", json=body, headers={"x-forwarded-for": "10.0.1.1"})
    assert refused.status_code == 413 and "no box of the workbench" in refused.json()["detail"]
    # what a box may hold still goes through: the longest notes, 20,000 characters
    status = call(workbench, "save_notes", ["1", "n" * 20_000, ""], "notes", "10.0.1.1")["data"][0]
    assert "Open a failure first" in status


def test_the_workbench_takes_no_uploads(workbench):
    refused = workbench.post(API + "/upload", files={"files": ("a.bin", b"x" * 1000)})
    assert refused.status_code == 413


def test_one_client_cannot_queue_more_than_two_calls_of_one_event(workbench):
    mallory, alice = "10.0.2.1", "10.0.2.2"
    assert [join(workbench, "export_jsonl", NO_FILTER, s, mallory).status_code for s in ("m1", "m2")] == [200, 200]
    refused = join(workbench, "export_jsonl", NO_FILTER, "m3", mallory)
    assert refused.status_code == 429 and "2 'export_jsonl' requests of yours" in refused.json()["detail"]
    assert join(workbench, "export_jsonl", NO_FILTER, "a1", alice).status_code == 200  # another visitor is not refused


def test_episode_play_spends_the_write_budget_of_reset_and_step(workbench):
    client = "10.0.3.1"
    for index in range(WRITES_PER_MINUTE):  # each one served before the next: the queue limits stay out of the way
        assert "Nothing to bank yet" in call(workbench, "bank_episode", [None], f"w{index}", client)["data"][3]
    refused = join(workbench, "bank_episode", [None], "w-over", client)
    assert refused.status_code == 429 and "write budget" in refused.json()["detail"]
    assert int(refused.headers["retry-after"]) >= 1
    search = NO_FILTER + ["1", 50]
    assert join(workbench, "search_failures", search, "w-read", client).status_code == 200  # reads are not writes


def test_the_queue_and_the_sessions_kept_are_bounded(workbench):
    mounted = next(route.app for route in workbench.server_app.routes if getattr(route, "path", None) == UI_PATH)
    assert mounted.get_blocks()._queue.max_size == MAX_QUEUED_EVENTS
    assert mounted.state_holder.capacity == MAX_UI_SESSIONS


def fake_event(fn, client):
    return SimpleNamespace(fn=fn, request=SimpleNamespace(scope={"client": (client, 1), "headers": []}))


def fake_queue(events):
    return SimpleNamespace(event_queue_per_concurrency_id={"any": SimpleNamespace(queue=events)}, active_jobs=[None])


def test_a_client_may_have_sixteen_events_waiting_in_all():
    budget, events = WriteBudget(0), [fake_event(SimpleNamespace(api_name=f"e{i}"), "10.0.4.1")
                                      for i in range(MAX_PENDING_PER_CLIENT)]
    fn = SimpleNamespace(api_name="search_failures")
    with pytest.raises(HTTPException) as refused:
        workbench_guard._check(fake_queue(events), fn, "10.0.4.1", budget, behind_proxy=False)
    assert refused.value.status_code == 429 and f"{MAX_PENDING_PER_CLIENT} requests of yours" in refused.value.detail
    workbench_guard._check(fake_queue(events), fn, "10.0.4.2", budget, behind_proxy=False)  # someone else: fine


def test_a_public_workbench_without_an_admin_password_is_logged(settings, caplog):
    services = Services.from_settings(settings.with_overrides(behind_proxy=True))
    with caplog.at_level("WARNING", logger="alice_app.server"):
        create_app(services)
    services.close()
    assert "ALICE_ADMIN_PASSWORD is not" in caplog.text
