import pytest

from alice_app.models.base import BackendError
from alice_app.models.oracle import ApiOracle, LocalOracle, grading_messages, parse_verdict
from alice_app.models.remote import OpenAIPolicy
from alice_app.types import Task
from alice_app.verify.oracle import Oracle, OracleError

TASK = Task(id="t/easy/1", family="t", level="easy", prompt="If the result is NOT 14, what is 3 + 4?",
            answer="7", hint="", seed=1)


@pytest.mark.parametrize(
    "reply, expected",
    [
        ("VERDICT: CORRECT\nREASON: seven equals 7", True),
        ("verdict: incorrect\nreason: 14 is the distractor", False),
        ("**VERDICT:** CORRECT", True),
        ("VERDICT: INCORRECT ... on reflection VERDICT: CORRECT", True),  # the last verdict wins
        ("The answer looks right to me.", None),
        ("VERDICT: UNSURE\nREASON: ambiguous", None),
        ("", None),
    ],
)
def test_parse_verdict(reply, expected):
    judgement = parse_verdict(reply, confidence=0.8)
    assert judgement.is_correct is expected
    assert judgement.confidence == (0.8 if expected is not None else 0.0)
    assert judgement.reason


def test_parse_verdict_keeps_the_reason():
    assert parse_verdict("VERDICT: INCORRECT\nREASON: 14 is the distractor", 0.8).reason == "14 is the distractor"


def test_grading_prompt_shows_task_reference_and_clipped_response():
    system, user = grading_messages(TASK, "x" * 10_000 + " so the answer is 7")
    assert "VERDICT: CORRECT or VERDICT: INCORRECT" in system["content"]
    assert TASK.prompt in user["content"] and "REFERENCE ANSWER: 7" in user["content"]
    assert user["content"].endswith("so the answer is 7\n\nGrade the student's final answer.")
    assert len(user["content"]) < 5000


class _BrokenPolicy:
    model_id = "broken"

    def __init__(self, error):
        self.error = error

    def generate(self, messages_batch, n=1, temperature=0.0, max_tokens=64):
        raise self.error


@pytest.mark.parametrize("error", [BackendError("HTTP 500"), RuntimeError("CUDA out of memory")])
def test_backend_failure_becomes_oracle_error(error):
    with pytest.raises(OracleError, match="oracle local:broken failed"):
        LocalOracle(_BrokenPolicy(error)).judge(TASK, "7")


def test_api_oracle_over_real_http(chat_server):
    oracle = ApiOracle(OpenAIPolicy(chat_server.base_url, "grader", timeout=5, retries=0))
    assert isinstance(oracle, Oracle)
    assert oracle.name == "api:grader"
    right = oracle.judge(TASK, "It is seven, i.e. 7.")
    wrong = oracle.judge(TASK, "14")
    assert (right.is_correct, wrong.is_correct) == (True, False)
    assert right.confidence == 0.85 and "compared with 7" in right.reason
    assert chat_server.requests[0]["temperature"] == 0.0


def test_api_oracle_timeout_is_oracle_error(chat_server):
    oracle = ApiOracle(OpenAIPolicy(chat_server.base_url, "slow", timeout=0.3, retries=0))
    with pytest.raises(OracleError, match="no reply within"):
        oracle.judge(TASK, "7")


def test_stack_asks_the_api_oracle_only_when_tier1_cannot_decide(chat_server):
    from alice_app.verify.stack import VerifierStack

    stack = VerifierStack(ApiOracle(OpenAIPolicy(chat_server.base_url, "grader", timeout=5, retries=0)))
    decided = stack.verify(TASK, "Answer: 7")
    assert decided.tier == 1 and decided.is_correct and not chat_server.requests
    undecided = stack.verify(TASK, "It is 7, though a friend said 14")  # no answer line, last number differs
    assert (undecided.tier, undecided.is_correct) == (2, True)
    assert undecided.details["oracle"] == "api:grader" and len(chat_server.requests) == 1


def test_stack_degrades_to_tier1_when_the_oracle_times_out(chat_server):
    from alice_app.verify.stack import VerifierStack

    stack = VerifierStack(ApiOracle(OpenAIPolicy(chat_server.base_url, "slow", timeout=0.3, retries=0)))
    verdict = stack.verify(TASK, "no idea at all")
    assert verdict.tier == 1 and verdict.confidence == 0.5
    assert "oracle failed" in verdict.feedback and "no reply within 0.3 s" in verdict.details["degraded"]
