"""examples/play_via_server.py with the real embedded model against a real server."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load_example():
    spec = importlib.util.spec_from_file_location("play_via_server", ROOT / "examples" / "play_via_server.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_example_rejects_bad_arguments(capsys):
    with pytest.raises(SystemExit) as exit_info:
        load_example().parse_args(["--episodes", "0"])
    assert exit_info.value.code == 2 and "at least 1" in capsys.readouterr().err


@pytest.mark.slow
def test_example_plays_an_episode_with_the_embedded_model(server_url, services, monkeypatch, capsys):
    # The model checkpoint is converted once into the repository's data/models and reused.
    monkeypatch.setenv("ALICE_DATA_DIR", str(ROOT / "data"))
    monkeypatch.delenv("API_BASE_URL", raising=False)
    monkeypatch.delenv("MODEL_NAME", raising=False)
    assert load_example().main(["--url", server_url, "--episodes", "1", "--seed", "5", "--max-tokens", "24"]) == 0
    out = capsys.readouterr().out
    assert "[negation_arithmetic/easy/5]" in out and "turn 1:" in out and "solved " in out
    attempts = {(row["family"], row["level"]): row["attempts"] for row in services.bank.failure_map()}
    assert attempts[("negation_arithmetic", "easy")] == 1  # the server recorded the episode
