import time

import pytest

from alice_app.models.base import BackendError
from alice_app.models.remote import OpenAIPolicy, chat_completions_url, parse_choices

CHAT = [{"role": "user", "content": "What is 3 + 4?"}]


@pytest.fixture
def server(chat_server):
    return chat_server


def policy(server, model, **kwargs):
    kwargs = {"timeout": 5.0, "retries": 2, "backoff": 0.01, **kwargs}
    return OpenAIPolicy(server.base_url, model, token="secret", **kwargs)


def test_url_accepts_base_or_full_endpoint():
    assert chat_completions_url("http://h/v1/") == "http://h/v1/chat/completions"
    assert chat_completions_url("http://h/v1/chat/completions") == "http://h/v1/chat/completions"


def test_parse_choices_reads_messages_and_rejects_bad_shapes():
    assert parse_choices({"choices": [{"message": {"content": " 7 "}}, {"text": "8"}]}) == ["7", "8"]
    for bad in ({}, {"choices": "x"}, {"choices": [{"message": {}}]}, []):
        with pytest.raises(ValueError):
            parse_choices(bad)


def test_batch_of_chats_gets_n_answers_each_in_order(server):
    chats = [[{"role": "user", "content": f"q{i}"}] for i in range(5)]
    answers = policy(server, "ok").generate(chats, n=2, temperature=0.7, max_tokens=9)
    assert answers == [[f"echo 0: q{i}", f"echo 1: q{i}"] for i in range(5)]
    sent = server.requests[0]
    assert sent["temperature"] == 0.7 and sent["max_tokens"] == 9 and sent["n"] == 2
    assert sent["authorization"] == "Bearer secret"


def test_server_that_ignores_n_is_asked_again(server):
    answers = policy(server, "single-choice").generate([CHAT], n=3, temperature=1.0)
    assert len(answers[0]) == 3
    assert server.hits["single-choice"] == 3


def test_greedy_asks_once_and_repeats_the_answer(server):
    assert policy(server, "ok").generate([CHAT], n=3) == [["echo 0: What is 3 + 4?"] * 3]
    assert server.hits["ok"] == 1 and server.requests[0]["n"] == 1


def test_transient_503_is_retried(server):
    assert policy(server, "flaky").generate([CHAT]) == [["echo 0: What is 3 + 4?"]]
    assert server.hits["flaky"] == 2


def test_http_500_retries_then_names_endpoint_and_status(server):
    with pytest.raises(BackendError, match=r"failed after 3 attempt\(s\).*HTTP 500: upstream exploded"):
        policy(server, "error500").generate([CHAT])
    assert server.hits["error500"] == 3


def test_http_400_fails_at_once(server):
    with pytest.raises(BackendError, match="refused the request.*HTTP 400"):
        policy(server, "error400").generate([CHAT])
    assert server.hits["error400"] == 1


def test_malformed_json_gives_clear_error(server):
    with pytest.raises(BackendError, match="malformed reply"):
        policy(server, "malformed", retries=1).generate([CHAT])
    assert server.hits["malformed"] == 2


def test_slow_reply_times_out(server):
    started = time.monotonic()
    with pytest.raises(BackendError, match=r"no reply within 0.3 s"):
        policy(server, "slow", timeout=0.3, retries=1).generate([CHAT])
    assert time.monotonic() - started < 1.5 * 2  # gave up without waiting for the slow replies


def test_unreachable_endpoint_is_a_clear_error():
    dead = OpenAIPolicy("http://127.0.0.1:9/v1", "m", timeout=1.0, retries=0)
    with pytest.raises(BackendError, match="connection error"):
        dead.generate([CHAT])


def test_bad_arguments_are_rejected_before_any_request(server):
    with pytest.raises(ValueError):
        policy(server, "ok").generate([CHAT], n=0)
    with pytest.raises(ValueError):
        policy(server, "ok").generate([[]])
    assert not server.requests


def test_tier3_samples_come_from_one_sampled_request_per_chat(server):
    from alice_app.models.consistency import verify_with_consistency
    from alice_app.tasks.registry import generate_task
    from alice_app.verify.stack import VerifierStack

    task = generate_task("plain_arithmetic", "easy", 1)
    chat = [{"role": "user", "content": task.prompt}]
    (verdict,) = verify_with_consistency(policy(server, "ok"), VerifierStack(), [(task, chat, "Answer: 0")], k=4)
    assert verdict.tier == 3 and verdict.details["consistency"]["samples"] == 4
    assert [(r["n"], r["temperature"]) for r in server.requests] == [(4, 0.8)]
