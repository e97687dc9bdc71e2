"""`python app.py` with a broken setting or database: one clear line, exit code 2, file untouched."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_app(env_changes: dict) -> subprocess.CompletedProcess:
    env = {**os.environ, **env_changes}
    return subprocess.run([sys.executable, "app.py"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)


def test_a_file_that_is_not_a_database_is_refused_and_left_untouched(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    db = data / "alice.db"
    db.write_text("my precious notes, not a database")
    result = run_app({"ALICE_DATA_DIR": str(data)})
    assert result.returncode == 2
    assert "not a usable ALICE database" in result.stderr
    assert "Traceback" not in result.stderr
    assert db.read_text() == "my precious notes, not a database"


def test_a_bad_port_is_refused_with_one_line(tmp_path):
    result = run_app({"ALICE_DATA_DIR": str(tmp_path), "GRADIO_SERVER_PORT": "abc"})
    assert result.returncode == 2
    assert result.stderr.startswith("error: GRADIO_SERVER_PORT")
