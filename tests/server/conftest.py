"""A real ALICE server on 127.0.0.1 (uvicorn in a thread) over a temporary database."""
from __future__ import annotations

import shutil
import socket
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import httpx
import pytest
import uvicorn

from alice_app.server.asgi import create_app


@pytest.fixture(scope="session")
def openenv_cli() -> str:
    """openenv-core's CLI: beside this interpreter (a virtualenv's bin need not be on PATH), else on PATH."""
    beside = Path(sys.executable).parent / "openenv"
    found = str(beside) if beside.exists() else shutil.which("openenv")
    assert found, f"openenv-core's CLI is neither beside {sys.executable} nor on PATH: install requirements.txt"
    return found


@contextmanager
def running_server(app) -> Iterator[str]:
    """Serve ``app`` on a free local port until the block ends; yields the base URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@pytest.fixture
def serve():
    """``with serve(app) as url:`` runs another server, e.g. one with other settings."""
    return running_server


@pytest.fixture
def server_url(services) -> Iterator[str]:
    """The OpenEnv API without the web UI (the UI has its own test)."""
    with running_server(create_app(services, mount_ui=False)) as url:
        yield url


@pytest.fixture
def http(server_url) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server_url, timeout=30) as client:
        yield client
