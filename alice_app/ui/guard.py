"""Guarded writes: binding a handler to Services so Gradio still injects ``gr.Request``, and the
admin password check (with its rate limit, ``services.admin``) as a message for the status line.

Which writes are guarded is listed in docs/ui.md: everything that changes shared data except
playing episodes (and banking one's own finished episode), searching and exporting.
"""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

from alice_app.client_identity import client_identity


def bind(fn: Callable, *bound: Any, **bound_kw: Any) -> Callable:
    """``functools.partial`` as a plain function: Gradio reads a partial's signature but not its
    type hints, so a ``request: gr.Request`` parameter would never be filled in."""
    signature = inspect.signature(functools.partial(fn, *bound, **bound_kw))

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        return fn(*bound, *args, **bound_kw, **kwargs)

    call.__signature__ = signature  # type: ignore[attr-defined]
    return call


def client_key(request: Any, behind_proxy: bool = False) -> str:
    """Who is asking, for the password rate limit (``client_identity``, as the server's guard tells
    clients apart): the client's address as Gradio gives it, or behind a proxy the address the proxy saw."""
    forwarded = (getattr(request, "headers", None) or {}).get("x-forwarded-for")
    return client_identity(getattr(getattr(request, "client", None), "host", None), forwarded, behind_proxy)


def refusal(services: Any, password: str | None, request: Any) -> str | None:
    """None when the write may go ahead, else the "⚠ ..." message saying why not."""
    try:
        services.admin.check(password, client_key(request, services.settings.behind_proxy))
    except PermissionError as exc:
        return f"⚠ {exc}"
    return None
