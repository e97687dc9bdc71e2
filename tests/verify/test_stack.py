import threading
import time

import pytest

from alice_app.verify import NoOracle, OracleError, OracleJudgement, VerifierStack
from alice_app.verify.feedback import FORMAT_HELP


class CountingOracle:
    """A test double for the protocol (real backends are tested in tests/models)."""

    name = "counting"

    def __init__(self, judgement=None, error=None, delay=0.0):
        self.calls, self.judgement, self.error, self.delay = 0, judgement, error, delay

    def judge(self, task, response):
        self.calls += 1
        time.sleep(self.delay)
        if self.error:
            raise self.error
        return self.judgement


def test_tier1_decides_plain_numbers_without_the_oracle(task):
    oracle = CountingOracle(OracleJudgement(True, 0.9, "looks right"))
    verdict = VerifierStack(oracle).verify(task, "Answer: 14")
    assert (verdict.is_correct, verdict.tier, verdict.confidence) == (False, 1, 1.0)
    assert oracle.calls == 0
    assert verdict.to_dict().keys() >= {"is_correct", "confidence", "feedback", "tier"}


def test_oracle_decides_what_tier1_cannot(task):
    oracle = CountingOracle(OracleJudgement(True, 0.9, "ten, in words and symbols"))
    verdict = VerifierStack(oracle).verify(task, "It is the square root of one hundred.")
    assert (verdict.is_correct, verdict.tier, verdict.confidence) == (True, 2, 0.9)
    assert oracle.calls == 1 and verdict.details["oracle"] == "counting"


@pytest.mark.parametrize("oracle", [None, NoOracle()])
def test_no_oracle_keeps_tier1_with_lower_confidence(task, oracle):
    verdict = VerifierStack(oracle).verify(task, "I am not sure")
    assert (verdict.is_correct, verdict.tier) == (False, 1)
    assert verdict.confidence < 1.0
    assert FORMAT_HELP in verdict.feedback and "oracle is unavailable" in verdict.feedback


def test_failing_oracle_degrades_to_tier1_with_the_reason(task):
    oracle = CountingOracle(error=OracleError("HTTP 503 from the endpoint"))
    verdict = VerifierStack(oracle).verify(task, "Answer: \\sqrt{2}")
    assert (verdict.is_correct, verdict.tier) == (False, 1) and verdict.confidence < 1.0
    assert "HTTP 503" in verdict.feedback and "HTTP 503" in verdict.details["degraded"]


def test_buggy_oracle_degrades_too(task):
    verdict = VerifierStack(CountingOracle(error=KeyError("choices"))).verify(task, "no idea")
    assert verdict.tier == 1 and "KeyError" in verdict.feedback


def test_slow_oracle_times_out(task):
    started = time.perf_counter()
    verdict = VerifierStack(CountingOracle(OracleJudgement(True, 1.0, "late"), delay=2.0),
                            oracle_timeout_s=0.2).verify(task, "no idea")
    assert time.perf_counter() - started < 1.5
    assert verdict.tier == 1 and "within 0.2 s" in verdict.feedback


def test_undecided_oracle_degrades(task):
    verdict = VerifierStack(CountingOracle(OracleJudgement(None, 0.0, "cannot tell"))).verify(task, "hmm")
    assert verdict.tier == 1 and "cannot tell" in verdict.feedback


def test_judgement_confidence_is_validated():
    with pytest.raises(ValueError, match="0..1"):
        OracleJudgement(True, 1.5, "too sure")


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="oracle_timeout_s"):
        VerifierStack(oracle_timeout_s=0)
    with pytest.raises(ValueError, match="unstable_below"):
        VerifierStack(unstable_below=2)


def test_samples_fold_in_tier3(task):
    verdict = VerifierStack().verify(task, "Answer: 10", samples=["10", "Answer: 10", "14", "4"])
    assert verdict.tier == 3 and verdict.is_correct
    assert verdict.details["pass_rate"] == 0.5 and verdict.details["entropy"] == 1.5
    assert verdict.details["unstable"] and "luck" in verdict.feedback
    assert verdict.confidence == 0.25


def test_stable_samples_are_not_flagged(task):
    verdict = VerifierStack().verify(task, "10", samples=["10"] * 4)
    assert verdict.tier == 3 and not verdict.details["unstable"] and verdict.confidence == 1.0


def test_stack_serves_threads(task):
    stack, results = VerifierStack(), []
    workers = [threading.Thread(target=lambda: results.append(stack.verify(task, "$\\frac{20}{2}$")))
               for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(30)
    assert len(results) == 4 and all(v.is_correct for v in results)
