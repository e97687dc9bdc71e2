"""Fixtures for the integration tests: real services on a temporary database, a live ALICE server
(the server tests' own ``running_server``), and for the slow tests the converted embedded model."""
from __future__ import annotations

import pytest


@pytest.fixture
def server_url(services, load_script):
    """An ALICE OpenEnv server (API only) over ``services``' database."""
    from alice_app.server.asgi import create_app

    running_server = load_script("tests/server/conftest.py").running_server
    with running_server(create_app(services, mount_ui=False)) as url:
        yield url


@pytest.fixture(scope="session")
def embedded_model_dir(embedded_models_dir):
    """The converted embedded checkpoint itself (not its models folder)."""
    return embedded_models_dir / "SmolLM2-135M-Instruct"
