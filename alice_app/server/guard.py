"""What a public deployment needs in front of the OpenEnv routes, as one ASGI middleware.

- an optional API token (``ALICE_API_TOKEN``): ``Authorization: Bearer <token>`` (or
  ``?token=<token>`` on the WebSocket, whose browser API cannot send headers);
- a write budget per client (``ALICE_WRITES_PER_MINUTE``): an HTTP /reset or /step over it gets
  429 with a Retry-After; a WebSocket message over it waits for the budget instead (the session
  is slowed, never dropped);
- a request body over MAX_BODY_BYTES is refused (413) before it is read; on every other path (the
  workbench at /web) the bound is MAX_UI_BODY_BYTES (a 200 MB answer sent to the workbench cost
  the server 700 MB of memory);
- a binary WebSocket frame reaches OpenEnv as text, so it gets an error message back instead of
  closing the session; a client refused for lack of session slots reads CAPACITY_REACHED before
  the socket closes;
- the client's identity (``client_key``) for the episode registry: the peer address, or the
  address the proxy saw when ``ALICE_BEHIND_PROXY`` is set.

The web UI (/web), /health and / need no token: the UI has its own admin password. Its queue has
limits of its own (``workbench_guard``: events waiting per client, the same write budget), and
it takes no uploads (MAX_UPLOAD_BYTES). The limits of a public deployment are the constants below.
"""
from __future__ import annotations

import asyncio
import hmac
import json
import threading
import time
from contextvars import ContextVar
from urllib.parse import parse_qs

from alice_app.client_identity import client_identity
from alice_app.server.models import MAX_RESPONSE_CHARS

GUARDED_PREFIXES = ("/reset", "/step", "/state", "/ws", "/mcp", "/schema", "/metadata", "/docs", "/openapi")
WRITE_PATHS = ("/reset", "/step")
MAX_TRACKED_CLIENTS = 10_000
REFUSAL_LINGER_S = 2.0
# The largest request body read: an answer of MAX_RESPONSE_CHARS characters, each escaped in JSON
# as "\\uXXXX" (6 bytes) at worst, plus room for the rest of the request.
MAX_BODY_BYTES = 6 * MAX_RESPONSE_CHARS + 8 * 1024
# The workbench's largest input is a failure's notes (20,000 characters: 240 KB escaped in JSON
# at worst) or a 64 KB answer; 1 MiB leaves room for every box of a form besides.
MAX_UI_BODY_BYTES = 1024 * 1024
# The workbench has no upload box; Gradio's /upload would otherwise store any file, of any size
# (500 MB in 1.1 s), until the disk is full.
MAX_UPLOAD_BYTES = 0
# The workbench's queue (workbench_guard): events one client may have waiting or running, in all
# and of any one event (one running and one waiting: a second click while the first is served),
# and events waiting in all (Gradio's max_size).
MAX_PENDING_PER_CLIENT = 16
MAX_PENDING_PER_EVENT = 2
MAX_QUEUED_EVENTS = 256
# Browser sessions whose state the workbench keeps (Gradio's state_session_capacity, 10,000 by default):
# each holds about 0.4 MB (a copy of the app's config and the session's environment), so 10,000 opened
# sessions took 4 GB; beyond this many the least recently used session starts afresh.
MAX_UI_SESSIONS = 1000

current_client: ContextVar[str | None] = ContextVar("alice_client", default=None)


class WriteBudget:
    """A token bucket per client: ``per_minute`` writes a minute, in bursts of up to as many."""

    def __init__(self, per_minute: int, clock=time.monotonic):
        self.per_minute = per_minute
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # client -> (tokens, last refill)
        self._lock = threading.Lock()

    def take(self, client: str) -> float:
        """Spend one write; 0.0 when allowed, else the seconds until one is available."""
        if self.per_minute <= 0:
            return 0.0
        rate = self.per_minute / 60.0
        with self._lock:
            now = self._clock()
            tokens, last = self._buckets.get(client, (float(self.per_minute), now))
            tokens = min(float(self.per_minute), tokens + (now - last) * rate)
            if tokens >= 1.0:
                self._remember(client, (tokens - 1.0, now))
                return 0.0
            self._remember(client, (tokens, now))
            return (1.0 - tokens) / rate

    def _remember(self, client: str, bucket: tuple[float, float]) -> None:
        if client not in self._buckets and len(self._buckets) >= MAX_TRACKED_CLIENTS:
            self._buckets.pop(next(iter(self._buckets)))  # the oldest client seen
        self._buckets[client] = bucket


def client_key(scope: dict, behind_proxy: bool) -> str:
    """Who sent the request (``client_identity``): the peer address, or the last hop the proxy recorded."""
    forwarded = [value.decode("latin-1") for name, value in scope.get("headers", []) if name == b"x-forwarded-for"]
    client = scope.get("client")
    return client_identity(str(client[0]) if client else None, ", ".join(forwarded), behind_proxy)


def _token_of(scope: dict) -> str | None:
    for name, value in scope.get("headers", []):
        if name == b"authorization" and value.lower().startswith(b"bearer "):
            return value[7:].decode("latin-1").strip()
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    return (query.get("token") or [None])[0]


class ClientGuard:
    """The ASGI middleware described in the module docstring."""

    def __init__(self, app, *, api_token: str | None = None, writes_per_minute: int = 0, behind_proxy: bool = False,
                 budget: WriteBudget | None = None):
        self.app = app
        self.api_token = api_token or None
        self.budget = budget or WriteBudget(writes_per_minute)  # shared with the workbench's queue when given
        self.behind_proxy = behind_proxy

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        path, key = scope.get("path", ""), client_key(scope, self.behind_proxy)
        current_client.set(key)
        guarded = path.startswith(GUARDED_PREFIXES)
        if guarded and self.api_token and not hmac.compare_digest(
            (_token_of(scope) or "").encode(), self.api_token.encode()
        ):
            return await _refuse(scope, receive, send, 401, "this server needs its API token: send "
                                 "'Authorization: Bearer <ALICE_API_TOKEN>'")
        if scope["type"] == "websocket" and guarded:
            return await self.app(scope, self._websocket_receive(receive, key), _linger_after_refusal(send, receive))
        if scope["type"] == "websocket":  # not an OpenEnv route (e.g. the workbench): untouched
            return await self.app(scope, receive, send)
        if guarded and _declared_length(scope) > MAX_BODY_BYTES:
            return await _refuse(scope, receive, send, 413, f"request body over {MAX_BODY_BYTES:,} bytes; an "
                                 f"answer is at most {MAX_RESPONSE_CHARS:,} characters")
        if not guarded and _declared_length(scope) > MAX_UI_BODY_BYTES:
            return await _refuse(scope, receive, send, 413, f"request body over {MAX_UI_BODY_BYTES:,} bytes; "
                                 "no box of the workbench takes that much text")
        if scope.get("method") == "POST" and path in WRITE_PATHS:
            wait = self.budget.take(key)
            if wait:
                return await _refuse(scope, receive, send, 429, f"write budget spent ({self.budget.per_minute} "
                                     f"resets and steps a minute); retry in {wait:.1f} s", retry_after=wait)
        return await self.app(scope, _bounded_body(receive, MAX_BODY_BYTES if guarded else MAX_UI_BODY_BYTES), send)

    def _websocket_receive(self, receive, key: str):
        async def guarded_receive():
            message = await receive()
            if message["type"] != "websocket.receive":
                return message
            while (wait := self.budget.take(key)) > 0:
                await asyncio.sleep(min(wait, 5.0))
            if message.get("text") is None:  # a binary frame: OpenEnv would close the session
                data = message.get("bytes") or b""
                try:
                    text = data.decode("utf-8")
                except UnicodeDecodeError:
                    text = "binary frames are not supported: send JSON text"
                message = {"type": "websocket.receive", "text": text}
            return message

        return guarded_receive


def _declared_length(scope: dict) -> int:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return 0
    return 0


def _bounded_body(receive, limit: int):
    """A body sent without a length (chunked) is cut off at ``limit`` bytes: the app then sees a
    truncated document and answers 4xx instead of reading on."""
    seen = 0

    async def bounded_receive():
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                return {"type": "http.request", "body": b"", "more_body": False}
        return message

    return bounded_receive


def _linger_after_refusal(send, receive):
    """OpenEnv sends CAPACITY_REACHED and closes at once, so a client that starts by sending
    (every EnvClient does) meets a closed socket instead of the message. Keep the socket open
    until the client's first message (or REFUSAL_LINGER_S) so that it reads the refusal."""
    refused = False

    async def lingering_send(message):
        nonlocal refused
        if message["type"] == "websocket.send" and "CAPACITY_REACHED" in (message.get("text") or ""):
            refused = True
        elif message["type"] == "websocket.close" and refused:
            try:
                await asyncio.wait_for(receive(), REFUSAL_LINGER_S)
            except Exception:  # a timeout or a client already gone: close anyway
                pass
        await send(message)

    return lingering_send


async def _refuse(scope, receive, send, status: int, detail: str, retry_after: float | None = None) -> None:
    if scope["type"] == "websocket":  # accepted, told why in OpenEnv's error format, then closed
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        code = "UNAUTHORIZED" if status == 401 else "RATE_LIMITED"
        await send({"type": "websocket.send", "text": json.dumps({"type": "error", "data": {"message": detail,
                                                                                         "code": code}})})
        await send({"type": "websocket.close", "code": 4000 + status, "reason": detail[:120]})
        return
    body = json.dumps({"detail": detail}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if retry_after is not None:
        headers.append((b"retry-after", str(max(1, round(retry_after))).encode()))
    if status == 401:
        headers.append((b"www-authenticate", b"Bearer"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
