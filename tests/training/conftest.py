"""Fixtures for the training tests: real services on a temporary database, and (for the slow
tests) the embedded model converted once per session and shared by symlink."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from alice_app.config import Settings


@pytest.fixture(scope="session")
def embedded_models_dir(tmp_path_factory) -> Path:
    """The converted embedded checkpoint: the repository's data/models when it is there already,
    else a session folder (the conversion takes ~20 s once)."""
    from alice_app.models.loader import ensure_embedded_checkpoint, is_complete_checkpoint

    shared = Settings.from_env().models_dir
    if is_complete_checkpoint(Path(shared) / "SmolLM2-135M-Instruct"):
        return Path(shared).resolve()
    folder = tmp_path_factory.mktemp("models")
    ensure_embedded_checkpoint(folder)
    return folder


@pytest.fixture
def model_settings(settings: Settings, embedded_models_dir: Path) -> Settings:
    """``settings`` whose models folder points at the shared converted checkpoint."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    os.symlink(embedded_models_dir, settings.models_dir)
    return settings


@pytest.fixture
def model_services(model_settings: Settings):
    from alice_app.services import Services

    services = Services.from_settings(model_settings)
    yield services
    services.close()
