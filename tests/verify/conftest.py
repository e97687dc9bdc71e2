import pytest

from alice_app.types import Task


def _make_task(answer: str = "10", **metadata) -> Task:
    """A hand-built task (no registered family, so no family scorer) with the given metadata."""
    meta = {"operands": [7, 3], "operator": "+", "expression": "7 + 3", "distractors": [14],
            "negated": True, "alternatives": [4, 21]}
    meta.update(metadata)
    return Task(id="handmade/easy/1", family="handmade", level="easy",
                prompt="If the result is NOT 14, what is 7 + 3?", answer=answer,
                hint="The NOT-clause names a value to ignore; compute 7 + 3 directly.", seed=1, metadata=meta)


@pytest.fixture(scope="session")
def make_task():
    return _make_task


@pytest.fixture
def task() -> Task:
    return _make_task()
