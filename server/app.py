"""The OpenEnv entry point of ALICE: the ``server`` command of ``pip install .``, ``uv run server``,
``python -m server.app`` and ``openenv serve`` all land here.

It serves ``alice_app.server:app`` (the OpenEnv API and the workbench at /web) with uvicorn;
``app`` is re-exported, built on first access, so ``uvicorn server.app:app`` works too.
"""
from __future__ import annotations

import argparse
from typing import Any, Sequence


def __getattr__(name: str) -> Any:
    if name == "app":
        from alice_app.server import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main(argv: Sequence[str] | None = None) -> None:
    """Run the server; the host and port default to GRADIO_SERVER_NAME / GRADIO_SERVER_PORT."""
    import uvicorn

    from alice_app.config import Settings

    settings = Settings.from_env()
    parser = argparse.ArgumentParser(prog="server", description=__doc__.splitlines()[0])
    parser.add_argument("--host", default=settings.server_name, help="interface to listen on")
    parser.add_argument("--port", type=int, default=settings.server_port, help="port to listen on")
    args = parser.parse_args(argv)
    uvicorn.run("alice_app.server:app", host=args.host, port=args.port, proxy_headers=True)


if __name__ == "__main__":
    main()
