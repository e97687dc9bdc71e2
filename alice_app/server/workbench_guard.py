"""Limits on the Gradio workbench's queue, which every event of /web goes through (the browser's
/web/gradio_api/queue/join, gradio_client's /call/<api_name>).

Gradio serves each event one call at a time (its default concurrency limit) behind an unbounded
queue: one client's burst of ten exports of a 100k-row bank, sent in 0.3 s, kept every other
visitor's export waiting 49 s; and the events that play an episode wrote to the shared bank and
curriculum at 840 a minute with no budget. Here (the numbers are guard.py's constants):

- a client may have at most MAX_PENDING_PER_CLIENT events waiting or running, and at most
  MAX_PENDING_PER_EVENT of any one event; one more is refused at once (429), saying why;
- at most MAX_QUEUED_EVENTS events wait in all (Gradio's ``max_size``; one more: 503 "Queue is full");
- at most MAX_UI_SESSIONS browser sessions keep their state (the least recently used one starts afresh);
- the events that play episodes (WORKBENCH_WRITES, the Failure bank's recheck too) spend the client's
  write budget, the one that /reset and /step spend (``ALICE_WRITES_PER_MINUTE``): 429 with a Retry-After over it.

Clients are told apart as ClientGuard tells them apart (``client_key``).
"""
from __future__ import annotations

import asyncio
from typing import Any, Iterator

from fastapi import HTTPException

from alice_app.server.guard import (MAX_PENDING_PER_CLIENT, MAX_PENDING_PER_EVENT, MAX_QUEUED_EVENTS, MAX_UI_SESSIONS,
                                    WriteBudget, client_key)

WORKBENCH_WRITES = frozenset({"new_episode", "answer", "model_answer", "auto_play", "bank_episode", "recheck_failures"})


def guarded_workbench(services: Any, budget: WriteBudget | None = None) -> Any:
    """The Gradio workbench of ``services`` with the limits above; ``budget`` is the write budget it
    spends (the OpenEnv routes' when served beside them, else a new one of ``writes_per_minute``).
    Both faces serve it so: ``python app.py`` and the server's /web."""
    from alice_app.ui import build_app

    demo = build_app(services)
    demo.state_session_capacity = MAX_UI_SESSIONS
    settings = services.settings
    limit_queue(demo, budget or WriteBudget(settings.writes_per_minute), settings.behind_proxy)
    return demo


def limit_queue(demo: Any, budget: WriteBudget, behind_proxy: bool) -> None:
    """Give ``demo`` a bounded queue whose ``push`` (every join) applies the limits above."""
    demo.queue(max_size=MAX_QUEUED_EVENTS)
    queue = demo._queue
    push, lock = queue.push, asyncio.Lock()

    async def limited_push(body, request, username):
        fn = demo.fns.get(body.fn_index) if body.fn_index is not None else None
        who = client_key(request.scope, behind_proxy)
        async with lock:  # counted and queued in one step: a burst of joins cannot all pass the count
            _check(queue, fn, who, budget, behind_proxy)
            return await push(body=body, request=request, username=username)

    queue.push = limited_push


def _check(queue: Any, fn: Any, who: str, budget: WriteBudget, behind_proxy: bool) -> None:
    mine = [event for event in pending_events(queue) if _client_of(event, behind_proxy) == who]
    name = getattr(fn, "api_name", None) or "this"
    if fn is not None and sum(event.fn is fn for event in mine) >= MAX_PENDING_PER_EVENT:
        raise HTTPException(429, f"{MAX_PENDING_PER_EVENT} '{name}' requests of yours are already waiting or "
                                 "running; wait for them to finish, then try again.")
    if len(mine) >= MAX_PENDING_PER_CLIENT:
        raise HTTPException(429, f"{MAX_PENDING_PER_CLIENT} requests of yours are already waiting or running; "
                                 "wait for them to finish, then try again.")
    if name in WORKBENCH_WRITES and (wait := budget.take(who)):
        raise HTTPException(429, f"write budget spent ({budget.per_minute} episode actions a minute, counted with "
                                 f"/reset and /step); retry in {max(wait, 0.1):.1f} s.",
                            headers={"Retry-After": str(max(1, round(wait)))})


def pending_events(queue: Any) -> Iterator[Any]:
    """Every event waiting in ``queue`` or being served."""
    for event_queue in list(queue.event_queue_per_concurrency_id.values()):
        yield from list(event_queue.queue)
    for job in list(queue.active_jobs):
        yield from job or ()


def _client_of(event: Any, behind_proxy: bool) -> str | None:
    request = getattr(event, "request", None)
    return client_key(request.scope, behind_proxy) if request is not None else None
