"""The server's small pure pieces: the episode registry, option parsing, error trimming, models."""
from __future__ import annotations

import threading

import pytest

from alice_app.server.asgi import MAX_ECHOED_INPUT_CHARS, trim_errors
from alice_app.server.environment import parse_reset_options
from alice_app.server.episodes import EpisodeRegistry, EpisodeSlot, RequestError
from alice_app.server.models import MAX_RESPONSE_CHARS, AliceAction


def test_registry_drops_the_least_recently_used_episode():
    registry = EpisodeRegistry(capacity=2)
    for name in ("a", "b"):
        registry.add(EpisodeSlot(name, env=object()))
    registry.get("a")  # "a" is now more recent than "b"
    registry.add(EpisodeSlot("c", env=object()))
    assert registry.get("a").episode_id == "a" and registry.get("c").episode_id == "c"
    with pytest.raises(RequestError) as error:
        registry.get("b")
    assert error.value.status_code == 404 and "call /reset" in error.value.message


def test_registry_is_safe_under_threads():
    registry = EpisodeRegistry(capacity=50)

    def churn(offset: int) -> None:
        for i in range(200):
            registry.add(EpisodeSlot(f"{offset}-{i}", env=None))

    threads = [threading.Thread(target=churn, args=(t,)) for t in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(registry) == 50


def test_registry_needs_room():
    with pytest.raises(ValueError, match="at least 1"):
        EpisodeRegistry(capacity=0)


def test_reset_options_name_every_problem():
    assert parse_reset_options({"seed": 3, "level": "hard"}).mode == "auto"
    with pytest.raises(RequestError) as error:
        parse_reset_options({"seed": -2, "level": "extreme", "mode": "x"})
    message = error.value.message
    assert error.value.status_code == 422
    assert all(word in message for word in ("seed", "level", "mode", "hunt"))
    assert parse_reset_options({"seed": 1, "colour": "red"}).ignored == ["colour"]  # TRL's extra columns
    from alice_app.server.models import Wording
    from alice_app.tasks.wordings import WORDINGS

    assert Wording.__args__ == WORDINGS  # the wire model offers exactly the engine's wordings


def test_trim_errors_cuts_long_inputs_only():
    errors = [{"loc": ["body"], "msg": "too long", "input": "x" * 10_000}, {"msg": "short", "input": "ok"}]
    trimmed = trim_errors(errors)
    assert len(trimmed[0]["input"]) < MAX_ECHOED_INPUT_CHARS + 20 and trimmed[1]["input"] == "ok"
    assert trim_errors("a plain message") == "a plain message"


def test_action_limit_fits_the_engine_byte_limit():
    from alice_app.environment import MAX_ACTION_BYTES

    assert MAX_RESPONSE_CHARS * 4 <= MAX_ACTION_BYTES  # 4 bytes: the widest UTF-8 character
    assert AliceAction(response="").response == ""  # an empty answer is a (wrong) answer, not an error
