from pathlib import Path

import pytest

from alice_app.store.db import open_db
from alice_app.store.failures import FailureBank
from alice_app.types import Task, Verdict


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "alice.db"


@pytest.fixture
def db(db_path: Path):
    database = open_db(db_path)
    yield database
    database.close()


@pytest.fixture
def bank(db) -> FailureBank:
    return FailureBank(db)


def make_task(seed: int = 1, family: str = "negation_arithmetic", level: str = "easy", **extra) -> Task:
    a, b, w = 3 + seed % 7, 4 + seed % 5, 14 + seed
    return Task(
        id=f"{family}/{level}/{seed}", family=family, level=level,
        prompt=extra.pop("prompt", f"If the result is NOT {w}, what is {a} + {b}?"),
        answer=str(a + b), hint="The NOT-clause names a value to ignore.", seed=seed,
        metadata={"operands": [a, b], "operator": "+", "distractors": [w], **extra},
    )


def wrong(answer: str | None, feedback: str = "wrong") -> Verdict:
    return Verdict(is_correct=False, confidence=0.9, feedback=feedback, tier=1, extracted=answer)


@pytest.fixture(name="make_task")
def make_task_fixture():
    return make_task


@pytest.fixture(name="wrong")
def wrong_fixture():
    return wrong
