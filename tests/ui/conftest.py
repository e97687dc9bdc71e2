"""Fixtures for the workbench tests: real Services on a temporary SQLite file, and the real app
launched on a free 127.0.0.1 port."""
from __future__ import annotations

from pathlib import Path

import pytest

from alice_app.config import Settings
from bench.server import free_port


def make_services(data_dir: Path, **overrides):
    from alice_app.services import Services

    settings = Settings(data_dir=data_dir, db_path=data_dir / "alice.db", **overrides)
    return Services.from_settings(settings)


def launch_app(services):
    """Launch the real app in this process; returns (demo, url). Close with demo.close()."""
    from alice_app.ui import build_app, launch

    demo = build_app(services)
    settings = services.settings.with_overrides(server_name="127.0.0.1", server_port=free_port())
    _, url, _ = launch(demo, settings, prevent_thread_lock=True, quiet=True)
    return demo, url


def wrong_answer(task) -> str:
    """A number that is not the task's answer (the tests bank it as a failure)."""
    try:
        return f"Answer: {int(float(task.answer)) + 1000}"
    except ValueError:
        return "Answer: 123456"


def bank_failures(services, n: int, family: str = "negation_arithmetic", level: str = "easy", start_seed: int = 1):
    """Record ``n`` real failures: real tasks, judged by the real verifier."""
    from alice_app.tasks.registry import generate_task

    ids = []
    for seed in range(start_seed, start_seed + n):
        task = generate_task(family, level, seed)
        response = wrong_answer(task)
        ids.append(services.bank.record(task, response, services.verifier.verify(task, response), source="test"))
    return ids


@pytest.fixture
def admin_services(tmp_path: Path):
    """Services whose settings require the admin password "pw"."""
    return make_services(tmp_path / "admin-data", admin_password="pw")


@pytest.fixture
def add_failures():
    """``add_failures(services, n, family=..., level=...)`` banks real failures; returns their ids."""
    return bank_failures


@pytest.fixture(scope="module")
def live_app(tmp_path_factory):
    """The launched app with its own data dir, shared by the tests of one module."""
    services = make_services(tmp_path_factory.mktemp("app") / "data")
    demo, url = launch_app(services)
    yield services, url
    demo.close()
    if services.runs.active():  # never leave a training thread running after the tests
        services.training.shutdown()
