"""OpenEnv-compatible server for ALICE: ``uvicorn alice_app.server:app``.

``app`` is built on first access, not at import, so importing the client or the models from this
package never opens the database. (The factory lives in ``asgi.py``, not ``app.py``: a submodule
named ``app`` would shadow this attribute.)
"""
from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name == "app":
        from alice_app.server.asgi import app as built

        globals()["app"] = built
        return built
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
