"""OpenEnv's own validator, run against the live server, and the manifest its CLI reads."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def openenv_cli() -> str:
    """openenv-core's CLI: beside this interpreter (a virtualenv's bin need not be on PATH), else on PATH."""
    beside = Path(sys.executable).parent / "openenv"
    found = str(beside) if beside.exists() else shutil.which("openenv")
    assert found, f"openenv-core's CLI is neither beside {sys.executable} nor on PATH: install requirements.txt"
    return found


def test_openenv_validate_passes_against_the_running_server(server_url):
    result = subprocess.run([openenv_cli(), "validate", "--url", server_url], capture_output=True, text=True,
                            timeout=120)
    report = json.loads(result.stdout)
    failed = [c["id"] for c in report["criteria"] if not c["passed"]]
    assert report["passed"] and not failed, failed


def test_the_manifest_points_at_the_served_app():
    manifest = dict(line.split(": ", 1) for line in (ROOT / "openenv.yaml").read_text().splitlines() if ": " in line)
    assert manifest["app"] == "alice_app.server:app" and manifest["port"] == "7860"
    assert manifest["runtime"] == "fastapi" and manifest["type"] == "space"
