from pathlib import Path

import pytest

from alice_app.config import Settings


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Settings whose data directory and database live in a fresh temporary folder."""
    return Settings(data_dir=tmp_path / "data", db_path=tmp_path / "data" / "alice.db")
