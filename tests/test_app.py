"""`python app.py`: with a broken setting or database, one clear line, exit code 2, file untouched; running,
the workbench with the server's queue limits."""
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx

from bench.server import free_port

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


def test_the_workbench_of_python_app_py_has_the_server_s_queue_limits(tmp_path):
    """`python app.py` serves the workbench as /web is served: no uploads, episode play on the write budget."""
    port = free_port()
    env = {**os.environ, "ALICE_DATA_DIR": str(tmp_path), "GRADIO_SERVER_PORT": str(port),
           "ALICE_WRITES_PER_MINUTE": "2", "HF_HUB_OFFLINE": "1"}
    app = subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
            deadline = time.monotonic() + 90
            while True:
                assert app.poll() is None, app.stderr.read()
                try:
                    fns = {d["api_name"]: d["id"] for d in http.get("/config").json()["dependencies"]}
                    break
                except httpx.TransportError:
                    assert time.monotonic() < deadline, "python app.py did not start within 90 s"
                    time.sleep(0.5)
            assert http.post("/gradio_api/upload", files={"files": ("a.bin", b"x" * 1000)}).status_code == 413
            statuses = []
            for index in range(3):
                body = {"data": [None], "fn_index": fns["bank_episode"], "session_hash": f"s{index}", "event_data": None}
                statuses.append(http.post("/gradio_api/queue/join", json=body))
                time.sleep(0.5)  # let each one be served: only the budget refuses
            assert [r.status_code for r in statuses] == [200, 200, 429]
            assert "write budget" in statuses[-1].json()["detail"]
    finally:
        app.terminate()
        app.wait(timeout=30)


def test_launching_keeps_the_number_of_sessions_the_workbench_keeps(services):
    from alice_app.server.guard import MAX_UI_SESSIONS
    from alice_app.server.workbench_guard import guarded_workbench
    from alice_app.ui import launch

    demo = guarded_workbench(services)
    launch(demo, services.settings.with_overrides(server_port=free_port()), prevent_thread_lock=True)
    try:
        assert demo.state_holder.capacity == MAX_UI_SESSIONS  # Blocks.launch alone would make it 10,000
    finally:
        demo.close()
