"""Fixtures of the training tests."""
import pytest

from alice_app.training.rewards import GroupResult
from alice_app.verify.stack import VerifierStack


@pytest.fixture
def judged_group():
    """``judged_group(task, answers)``: a GroupResult of replies ``Answer: <a>``, judged by the real verifier."""
    verifier = VerifierStack()

    def build(task, answers, source="zone"):
        responses = tuple(f"Answer: {a}" for a in answers)
        return GroupResult(task=task, source=source, failure_id=None, responses=responses,
                           verdicts=tuple(verifier.verify(task, r) for r in responses))

    return build
