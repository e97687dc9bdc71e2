"""examples/play_via_server.py with the real embedded model against a real server."""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = "examples/play_via_server.py"


def test_example_rejects_bad_arguments(capsys, load_script):
    with pytest.raises(SystemExit) as exit_info:
        load_script(EXAMPLE).parse_args(["--episodes", "0"])
    assert exit_info.value.code == 2 and "at least 1" in capsys.readouterr().err


@pytest.mark.slow
def test_example_plays_an_episode_with_the_embedded_model(server_url, services, monkeypatch, capsys, load_script):
    # The model checkpoint is converted once into the repository's data/models and reused.
    monkeypatch.setenv("ALICE_DATA_DIR", str(ROOT / "data"))
    monkeypatch.delenv("API_BASE_URL", raising=False)
    monkeypatch.delenv("MODEL_NAME", raising=False)
    assert load_script(EXAMPLE).main(["--url", server_url, "--episodes", "1", "--seed", "5", "--max-tokens", "24"]) == 0
    out = capsys.readouterr().out
    assert "[negation_arithmetic/easy/5]" in out and "turn 1:" in out and "solved " in out
    attempts = {(row["family"], row["level"]): row["attempts"] for row in services.bank.failure_map()}
    assert attempts[("negation_arithmetic", "easy")] == 1  # the server recorded the episode
