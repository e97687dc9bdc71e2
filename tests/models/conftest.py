"""Fixtures for the model tests: a real chat-completions server on 127.0.0.1, the real embedded model."""
from __future__ import annotations

import json
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from alice_app.config import Settings

REPO_ROOT = Path(__file__).resolve().parents[2]


class ChatServer:
    """Speaks chat-completions; the requested model name picks the behaviour."""

    def __init__(self, slow_seconds: float = 2.0):
        self.requests: list[dict] = []
        self.hits: Counter[str] = Counter()
        self.slow_seconds = slow_seconds
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> "ChatServer":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def reply(self, body: dict, headers) -> tuple[int, str]:
        """(status, body text) for one request; the behaviour is named by the model."""
        model = body.get("model", "")
        self.requests.append({**body, "authorization": headers.get("Authorization")})
        self.hits[model] += 1
        last = body["messages"][-1]["content"]
        if model == "slow":
            time.sleep(self.slow_seconds)
        if model == "error500":
            return 500, "upstream exploded"
        if model == "error400":
            return 400, json.dumps({"error": "unknown model"})
        if model == "malformed":
            return 200, '{"choices": [ {"message": '
        if model == "flaky" and self.hits[model] == 1:
            return 503, "warming up"
        if model == "grader":  # a toy grader: correct when the reference answer appears in the response
            return 200, json.dumps({"choices": [{"message": {"content": _grade(last)}}]})
        n = 1 if model == "single-choice" else int(body.get("n", 1))
        choices = [{"index": i, "message": {"role": "assistant", "content": f"echo {i}: {last}"}} for i in range(n)]
        return 200, json.dumps({"object": "chat.completion", "model": model, "choices": choices})


def _grade(prompt: str) -> str:
    reference = prompt.split("REFERENCE ANSWER: ")[1].split("\n")[0]
    student = prompt.split("STUDENT RESPONSE:\n")[1]
    verdict = "CORRECT" if reference in student else "INCORRECT"
    return f"VERDICT: {verdict}\nREASON: compared with {reference}"


def _handler(server: ChatServer):
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            if self.path != "/v1/chat/completions":
                self.send_error(404)
                return
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            status, text = server.reply(body, self.headers)
            data = text.encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
                pass

        def log_message(self, *args) -> None:  # keep test output clean
            pass

    return Handler


@pytest.fixture
def chat_server():
    with ChatServer(slow_seconds=1.5) as running:
        yield running


@pytest.fixture(scope="session")
def embedded_models_dir() -> Path:
    """The app's own (git-ignored) models folder: the GGUF is converted there once and reused by
    every later test run, the app and the training job."""
    return REPO_ROOT / "data" / "models"


@pytest.fixture(scope="session")
def embedded_model(embedded_models_dir):
    """(model, tokenizer) of the real embedded SmolLM2, loaded once per test session."""
    from alice_app.models.loader import load_causal_lm

    return load_causal_lm(Settings(data_dir=embedded_models_dir.parent))


@pytest.fixture(scope="session")
def embedded_policy(embedded_model):
    from alice_app.config import EMBEDDED_MODEL
    from alice_app.models.local import LocalPolicy

    model, tokenizer = embedded_model
    return LocalPolicy(model, tokenizer, EMBEDDED_MODEL)
