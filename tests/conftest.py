import os
from pathlib import Path

import pytest

from alice_app.config import Settings


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Settings whose data directory and database live in a fresh temporary folder."""
    return Settings(data_dir=tmp_path / "data", db_path=tmp_path / "data" / "alice.db")


@pytest.fixture
def services(settings: Settings):
    """Real services (database, stores, verifier) over the temporary ``settings``; closed after."""
    from alice_app.services import Services

    services = Services.from_settings(settings)
    yield services
    services.close()


@pytest.fixture(scope="session")
def embedded_models_dir(tmp_path_factory) -> Path:
    """A models folder holding the converted embedded checkpoint: the repository's data/models when
    it is there already, else a session folder (the conversion takes ~20 s once)."""
    from alice_app.models.loader import ensure_embedded_checkpoint, is_complete_checkpoint

    shared = Settings.from_env().models_dir
    if is_complete_checkpoint(Path(shared) / "SmolLM2-135M-Instruct"):
        return Path(shared).resolve()  # absolute: subprocesses run in other folders
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
    """Real services whose policy is the embedded model (loaded on first use)."""
    from alice_app.services import Services

    services = Services.from_settings(model_settings)
    yield services
    services.close()


@pytest.fixture
def load_script():
    """Import a repository script (bench/…, examples/…) by its path relative to the repository root."""
    import importlib.util

    root = Path(__file__).resolve().parents[1]

    def load(relative_path: str):
        path = root / relative_path
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    return load


class FixedSamplesPolicy:
    """Unit-test stand-in for a policy: every chat gets the first n of ``answers``."""

    model_id = "fixed"

    def __init__(self, answers):
        self.answers = list(answers)

    def generate(self, chats, n=1, temperature=0.0, max_tokens=64):
        return [self.answers[:n] for _ in chats]


@pytest.fixture
def fixed_samples():
    """``fixed_samples([...])``: a policy whose k samples of any chat are fixed in advance."""
    return FixedSamplesPolicy
