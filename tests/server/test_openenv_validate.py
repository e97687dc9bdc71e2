"""OpenEnv's own validator, run against the live server, and the manifest its CLI reads."""
import json
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_openenv_validate_passes_against_the_running_server(server_url, openenv_cli):
    result = subprocess.run([openenv_cli, "validate", "--url", server_url], capture_output=True, text=True,
                            timeout=120)
    report = json.loads(result.stdout)
    failed = [c["id"] for c in report["criteria"] if not c["passed"]]
    assert report["passed"] and not failed, failed


def test_the_manifest_points_at_the_served_app():
    manifest = dict(line.split(": ", 1) for line in (ROOT / "openenv.yaml").read_text().splitlines() if ": " in line)
    assert manifest["app"] == "alice_app.server:app" and manifest["port"] == "7860"
    assert manifest["runtime"] == "fastapi" and manifest["type"] == "space"
