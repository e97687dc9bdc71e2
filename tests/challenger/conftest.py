"""Fixtures for the challenger's real-model tests: services on a temporary database whose models
folder points at the converted embedded checkpoint (the repository's data/models when present)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from alice_app.config import Settings


@pytest.fixture(scope="session")
def embedded_models_dir(tmp_path_factory) -> Path:
    from alice_app.models.loader import ensure_embedded_checkpoint, is_complete_checkpoint

    shared = Settings.from_env().models_dir
    if is_complete_checkpoint(Path(shared) / "SmolLM2-135M-Instruct"):
        return Path(shared).resolve()
    folder = tmp_path_factory.mktemp("models")
    ensure_embedded_checkpoint(folder)
    return folder


@pytest.fixture
def model_services(settings: Settings, embedded_models_dir: Path):
    from alice_app.services import Services

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    os.symlink(embedded_models_dir, settings.models_dir)
    services = Services.from_settings(settings)
    yield services
    services.close()
