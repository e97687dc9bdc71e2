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
