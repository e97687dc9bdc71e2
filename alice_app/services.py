"""Services: the one object the UI, the server and the CLI hold. Cheap to build, no torch.

Everything heavy (the policy model, a local oracle model, the training job) is created on first
use, under a lock, so starting the app or a test never loads a model it does not need.
"""
from __future__ import annotations

import threading
from typing import Any

from alice_app.config import Settings
from alice_app.environment import AliceEnvironment
from alice_app.store.curriculum import CurriculumStore
from alice_app.store.db import AliceDatabase, open_db
from alice_app.store.failures import FailureBank
from alice_app.store.runs import RunStore
from alice_app.store.templates import TemplateStore
from alice_app.verify.oracle import NoOracle, OracleError, OracleJudgement
from alice_app.verify.stack import VerifierStack


class LazyOracle:
    """A local oracle model loaded on its first judgement (not when the app starts).

    A load failure becomes ``OracleError``, which the verifier stack turns into a tier-1 verdict
    with feedback saying the oracle was unavailable, instead of failing the episode.
    """

    def __init__(self, settings: Settings, services: "Services"):
        self.name = f"{settings.oracle}:{settings.oracle_model or settings.model_name}"
        self._settings = settings
        self._services = services
        self._oracle = None
        self._error: str | None = None  # a failed load is not retried on every verdict
        self._lock = threading.Lock()

    def judge(self, task, response: str) -> OracleJudgement:
        with self._lock:
            if self._error is None and self._oracle is None:
                self._oracle, self._error = self._build()
        if self._error is not None:
            raise OracleError(self._error)
        return self._oracle.judge(task, response)

    def _build(self):
        from alice_app.models.factory import build_oracle

        try:
            return build_oracle(self._settings, policy=self._services.loaded_policy), None
        except Exception as exc:  # a missing or broken model must not break verification
            return None, f"the {self.name} oracle could not be loaded: {exc}"


class Services:
    """Settings, the database and its stores, the verifier, and lazily the policy and training."""

    def __init__(self, settings: Settings, db: AliceDatabase, verifier: VerifierStack | None = None):
        self.settings = settings
        self.db = db
        self.bank = FailureBank(db)
        self.curriculum = CurriculumStore(db)
        self.runs = RunStore(db)
        self.templates = TemplateStore(db)
        _load_challenger_templates(self.templates)
        self.oracle = _make_oracle(settings, self)
        self.verifier = verifier or VerifierStack(self.oracle)
        self._policy: Any = None
        self._training: Any = None
        self._lock = threading.RLock()

    @classmethod
    def from_settings(cls, settings: Settings | None = None) -> "Services":
        settings = (settings or Settings.from_env()).validate()
        return cls(settings, open_db(settings.db_path))

    @property
    def policy(self):
        """The configured policy, built on first use (loads the model: seconds to minutes)."""
        with self._lock:
            if self._policy is None:
                from alice_app.models.factory import build_policy

                self._policy = build_policy(self.settings)
            return self._policy

    @property
    def loaded_policy(self):
        """The policy if it is already loaded, else None (never triggers a load)."""
        return self._policy

    def use_policy(self, policy) -> None:
        """Swap in another policy (e.g. a freshly trained adapter) for every later caller."""
        with self._lock:
            self._policy = policy

    @property
    def training(self):
        """The background training job (one per process), created on first use."""
        with self._lock:
            if self._training is None:
                from alice_app.training.job import TrainingJob

                self._training = TrainingJob(self)
            return self._training

    def new_environment(self, seed: int | None = None) -> AliceEnvironment:
        """A fresh environment for one session; sessions share the stores, never episode state."""
        return AliceEnvironment(self.bank, self.curriculum, self.verifier, rng_seed=seed)

    def close(self) -> None:
        self.db.close()


def _make_oracle(settings: Settings, services: Services):
    if settings.oracle == "none":
        return NoOracle()
    if settings.oracle == "api":  # only an HTTP client: cheap, and its config errors show at start
        from alice_app.models.factory import build_oracle

        return build_oracle(settings)
    return LazyOracle(settings, services)


def _load_challenger_templates(store: TemplateStore) -> None:
    """Register the ``challenger`` family with the stored templates, so the hunt, the feed, repair and
    the Episode tab can draw them."""
    from alice_app.challenger.family import load_catalog

    load_catalog(store)
