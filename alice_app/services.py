"""Services: the one object the UI, the server and the CLI hold. Cheap to build, no torch.

Everything heavy (the policy model, a local oracle model, the training job) is created on first
use, under a lock, so starting the app or a test never loads a model it does not need.
"""
from __future__ import annotations

import hmac
import threading
import time
from typing import Any, Callable, Mapping, Sequence

from alice_app.config import Settings
from alice_app.environment import AliceEnvironment
from alice_app.store.curriculum import CurriculumStore
from alice_app.store.db import AliceDatabase, open_db
from alice_app.store.failures import FailureBank
from alice_app.store.runs import RunStore
from alice_app.store.templates import TemplateStore
from alice_app.types import Task, Verdict
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


MAX_TRUSTED_CLIENTS = 1000  # clients remembered as having given the admin password


class AdminGate:
    """The admin password (``ALICE_ADMIN_PASSWORD``) in front of every guarded UI write, with a
    rate limit on wrong guesses: after ``per_client`` wrong passwords from one client (or
    ``overall`` from everyone) within ``window_s`` seconds, every attempt is refused until the
    window has passed, right password or not, so guessing runs at a few tries a minute.

    The overall cap would let anyone with a few addresses lock the admin out too; a client that gave
    the right password within ``trusted_s`` seconds is therefore held to its own limit only. That keeps
    the cap on guessing (a guesser never got in, so is never trusted)."""

    def __init__(self, password: str | None, *, per_client: int = 5, overall: int = 50, window_s: float = 60.0,
                 trusted_s: float = 24 * 3600.0, clock: Callable[[], float] = time.monotonic):
        self.password = password or None
        self.per_client, self.overall, self.window_s, self.trusted_s = per_client, overall, window_s, trusted_s
        self._clock = clock
        self._failures: dict[str, list[float]] = {}
        self._trusted: dict[str, float] = {}  # client -> when it last gave the right password
        self._lock = threading.Lock()

    @property
    def required(self) -> bool:
        return self.password is not None

    def check(self, given: str | None, who: str = "unknown") -> None:
        """Return when no password is configured or ``given`` is right; else PermissionError."""
        if self.password is None:
            return
        with self._lock:
            now = self._clock()
            self._forget_before(now - self.window_s)
            mine = self._failures.get(who, [])
            everyone = sum(len(times) for times in self._failures.values())
            trusted = now - self._trusted.get(who, -float("inf")) < self.trusted_s
            if len(mine) >= self.per_client or (everyone >= self.overall and not trusted):
                wait = self.window_s - (now - min(mine or [now]))
                raise PermissionError(f"Too many wrong admin passwords; try again in {max(1, round(wait))} s.")
            if hmac.compare_digest(str(given or "").encode(), self.password.encode()):
                self._trust(who, now)
                return
            self._failures.setdefault(who, []).append(now)
        raise PermissionError("This action needs the admin password (ALICE_ADMIN_PASSWORD); "
                              "type it in the Admin password box.")

    def _trust(self, who: str, now: float) -> None:
        self._trusted.pop(who, None)
        self._trusted[who] = now
        while len(self._trusted) > MAX_TRUSTED_CLIENTS:
            self._trusted.pop(next(iter(self._trusted)))  # the one trusted longest ago

    def _forget_before(self, cutoff: float) -> None:
        for who in list(self._failures):
            kept = [t for t in self._failures[who] if t > cutoff]
            if kept:
                self._failures[who] = kept
            else:
                del self._failures[who]


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
        self.admin = AdminGate(settings.admin_password)
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

    def new_environment(self, seed: int | None = None, source: str | None = None) -> AliceEnvironment:
        """A fresh environment for one session; sessions share the stores, never episode state.
        ``source`` labels the failures it banks (e.g. "manual" for the workbench's episodes)."""
        return AliceEnvironment(self.bank, self.curriculum, self.verifier, rng_seed=seed, source=source)

    def sample_answers(self, messages, k: int, temperature: float = 0.8, max_tokens: int = 96) -> list[str]:
        """``k`` answers the policy samples for ``messages`` (tier 3): pass them to an environment's
        ``step(answer, samples=...)`` and their agreement becomes the verdict's confidence."""
        from alice_app.models.consistency import draw_samples

        return draw_samples(self.policy, [list(messages)], k, temperature, max_tokens)[0]

    def close(self) -> None:
        self.db.close()


def turn_modes(task: Mapping[str, Any], history: Sequence[Mapping[str, Any]]) -> list[str | None]:
    """Each turn's failure mode (None for a correct answer), as the bank would label it."""
    from alice_app.failure_modes import label_failure

    parsed = Task.from_dict(task)
    verdicts = [Verdict.from_dict(turn.get("verdict") or {}) for turn in history]
    return [None if v.is_correct else label_failure(parsed, v) for v in verdicts]


def training_defaults() -> dict[str, Any]:
    """TrainConfig's defaults as plain values (for a form)."""
    from alice_app.training.config import TrainConfig

    return TrainConfig().to_dict()


# Settings the Training tab does not offer as boxes: the top row has its own widgets (mode, feed, model,
# steps); lists and the vLLM switch are set from the CLI or a YAML recipe.
TRAINING_FORM_SKIP = ("mode", "feed", "model", "steps", "families", "lora_targets", "report_to", "use_vllm",
                      "vllm_mode")


def training_form_fields() -> list[tuple[str, str, Any, tuple[str, ...]]]:
    """(name, help, default, choices) of every TrainConfig setting the Training tab's form shows, in
    the dataclass's order, from TrainConfig itself (its field help, as the CLI flags use it)."""
    from dataclasses import fields

    from alice_app.training.config import TrainConfig

    return [(f.name, f.metadata["help"], f.default, f.metadata.get("choices", ())) for f in fields(TrainConfig)
            if f.name not in TRAINING_FORM_SKIP]


def training_recipes() -> list[tuple[str, str]]:
    """(name, description) of the repository's training recipes (examples/recipes/*.yaml)."""
    from alice_app.training.recipes import describe, recipe_paths

    return [(name, describe(path)) for name, path in recipe_paths().items()]


def training_recipe(name: str) -> dict[str, Any]:
    """Every TrainConfig setting of recipe ``name``: TrainConfig's defaults with the recipe on top,
    validated (ValueError names an unknown recipe or a bad setting in it)."""
    from alice_app.training.config import TrainConfig
    from alice_app.training.recipes import load_recipe, recipe_paths

    paths = recipe_paths()
    if name not in paths:
        raise ValueError(f"no recipe {name!r}; the recipes are {', '.join(paths) or 'none (examples/recipes is absent)'}")
    return TrainConfig.from_dict(load_recipe(paths[name])).to_dict()


def training_config(values: Mapping[str, Any]):
    """A validated TrainConfig from plain values; unknown or mistyped settings raise ValueError."""
    from alice_app.training.config import TrainConfig

    return TrainConfig.from_dict(values)


COEVOLVE_FORM_FIELDS = ("rounds", "challenger_steps", "solver_steps", "k", "challenger_warm_start")


def coevolve_form_fields() -> list[tuple[str, str, Any]]:
    """(name, help, default) of the co-evolution settings a form shows, from CoevolveConfig itself."""
    from dataclasses import fields

    from alice_app.challenger.coevolve import CoevolveConfig

    known = {f.name: f for f in fields(CoevolveConfig)}
    return [(name, known[name].metadata["help"], known[name].default) for name in COEVOLVE_FORM_FIELDS]


def coevolve_config(values: Mapping[str, Any]):
    """A validated CoevolveConfig from plain values (ValueError names what is wrong)."""
    from alice_app.challenger.coevolve import CoevolveConfig

    return CoevolveConfig.from_dict(values)


def training_cells(config) -> int:
    """How many family × level cells the run's held-out evaluation covers."""
    from alice_app.types import LEVELS

    return len(config.training_families()) * len(LEVELS)


def probe_cells(config) -> int:
    """At most how many family × level cells the co-evolving feed's probe answers (its frontier: each family's
    curriculum level and the ``feed_lookahead`` levels above); 0 when the run has no probe."""
    from alice_app.types import LEVELS

    if config.feed != "coevolve" or not config.feed_probe:
        return 0
    return len(config.training_families()) * min(config.feed_lookahead + 1, len(LEVELS))


def check_training_model(settings: Settings, name: str | None) -> str:
    """The base model a run should train ("" = the configured one), or ValueError saying why not.

    Accepted: blank or the configured local model, a local folder or .gguf file, or a Hugging Face
    id the Hub can serve (when it is offline: one already in the local cache). An endpoint cannot
    be trained: LoRA needs the weights.
    """
    import os
    import re
    from pathlib import Path

    name = (name or "").strip()
    if not name or name == settings.model_name:
        if settings.api_base_url:
            raise ValueError(f"{settings.model_name!r} is served by the endpoint {settings.api_base_url}; training "
                             "needs local weights: name a Hugging Face id or a local folder instead.")
        return ""
    path = Path(name).expanduser()
    if path.is_dir() and (path / "config.json").is_file() or path.is_file() and path.suffix == ".gguf":
        return str(path)
    if name.startswith(("/", ".", "~")) or name.endswith(".gguf") or not re.fullmatch(r"[\w.-]+/[\w.-]+", name):
        raise ValueError(f"Model {name[:80]!r} is neither a local model folder (with config.json or a "
                         ".gguf file) nor a Hugging Face id such as 'HuggingFaceTB/SmolLM2-360M-Instruct'.")
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes"):
        from huggingface_hub import try_to_load_from_cache

        if not isinstance(try_to_load_from_cache(name, "config.json"), str):
            raise ValueError(f"Model {name!r} is not in the local Hugging Face cache and the Hub is offline "
                             "(HF_HUB_OFFLINE=1); download it first or give a local folder.")
    return name


MAX_RECHECK_FAILURES = 20  # per click of the Failure bank's Recheck: 3 first attempts each


def is_adapter_folder(path: str | None) -> bool:
    """Whether ``path`` is a saved PEFT (LoRA) adapter folder (it holds ``adapter_config.json``)."""
    from pathlib import Path

    return bool(path) and (Path(path) / "adapter_config.json").is_file()


def require_adapter_folder(path: str) -> None:
    """ValueError unless ``path`` is a saved LoRA adapter folder: said before any model loads."""
    if not is_adapter_folder(path):
        raise ValueError(f"{path} is not a LoRA adapter folder (it has no adapter_config.json)")


def trained_adapters(services: Services, limit: int = 50) -> list[tuple[str, str]]:
    """(label, folder) of each completed training run whose LoRA adapter is on disk, newest first."""
    adapters = []
    for run in services.runs.list(limit=limit):
        path = run.get("checkpoint")
        if run["status"] == "completed" and is_adapter_folder(path):
            adapters.append((f"run #{run['id']}'s adapter ({run['kind']}, {run['config'].get('steps', '?')} steps)", path))
    return adapters


def play_with_adapter(services: Services, adapter: str | None) -> str:
    """Make the local base model with LoRA ``adapter`` the workbench's policy (None: back to the configured one,
    loaded again on first use); the model id that now answers."""
    from alice_app.models.factory import build_policy

    if adapter is None:
        services.use_policy(None)
        return services.settings.model_name
    require_adapter_folder(adapter)
    policy = build_policy(services.settings, adapter)
    services.use_policy(policy)
    return policy.model_id


def recheck_failures(services: Services, adapter: str | None, failures: int, seed: int):
    """Replay up to ``failures`` of the bank's newest unrepaired failures, each on ``RECHECK_VARIANTS`` fresh
    variants (``hunt --strategy recheck``), with the workbench's policy or, given ``adapter``, the local base model
    with that LoRA adapter; every row whose variants are all solved unaided is marked repaired. The hunt's report."""
    from alice_app.hunt import RECHECK_VARIANTS, run_hunt
    from alice_app.models.factory import build_policy

    if not 1 <= failures <= MAX_RECHECK_FAILURES:
        raise ValueError(f"recheck between 1 and {MAX_RECHECK_FAILURES} failures at a time, not {failures}")
    if not services.bank.count(repaired=False):  # said before a model loads
        raise ValueError("the failure bank has no unrepaired failures to recheck; hunt first")
    policy = build_policy(services.settings, adapter) if adapter else services.policy
    return run_hunt(policy, services, failures * RECHECK_VARIANTS, strategy="recheck", seed=seed)


MAX_DUEL_BUDGET = 16  # proposals each side writes, per duel started from the workbench
MAX_DUEL_SAMPLES = 8  # k: samples per filled task


def duel_models(services: Services, adapter_a: str | None, adapter_b: str | None, *, budget: int, k: int,
                seed: int) -> dict[str, Any]:
    """A duel (``alice_app.challenger.duel``) of two models, each the workbench's policy (None) or the local base
    model with a trained LoRA ``adapter`` folder, stored with the others; its result. Bad limits or a folder that
    is no adapter are refused before a model loads."""
    from alice_app.challenger.duel import stored_duel
    from alice_app.models.factory import build_policy

    if not 1 <= budget <= MAX_DUEL_BUDGET:
        raise ValueError(f"a duel's budget must be between 1 and {MAX_DUEL_BUDGET} proposals a side, not {budget}")
    if not 1 <= k <= MAX_DUEL_SAMPLES:
        raise ValueError(f"a duel's k must be between 1 and {MAX_DUEL_SAMPLES} samples a task, not {k}")
    for adapter in filter(None, (adapter_a, adapter_b)):
        require_adapter_folder(adapter)
    a, b = (build_policy(services.settings, adapter) if adapter else services.policy
            for adapter in (adapter_a, adapter_b))
    return stored_duel(services, a, b, names=(a.model_id, b.model_id), budget=budget, k=k, seed=seed)


def export_dpo_pairs(services: Services, path, filters: Mapping[str, Any] | None = None) -> int:
    """The bank's failures (those matching ``filters``, FailureBank.query's keyword arguments) as DPO
    pairs (prompt, chosen, rejected) in a JSONL file; returns the count."""
    from alice_app.training.dpo import export_dpo_dataset

    return export_dpo_dataset(services.bank, services.verifier, path, filters=filters)


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
