"""Build the configured policy and tier-2 oracle from Settings."""
from __future__ import annotations

from pathlib import Path

from alice_app.config import EMBEDDED_MODEL, Settings
from alice_app.models.base import Policy

POLICY_TIMEOUT_S = 60.0
ORACLE_TIMEOUT_S = 30.0  # the oracle sits inside verification; a slow one must give way quickly


def build_policy(settings: Settings, adapter: str | Path | None = None) -> Policy:
    """The remote endpoint when API_BASE_URL is set, otherwise a local model (embedded default).

    ``adapter`` is a PEFT (LoRA) adapter folder loaded on top of a local base model.
    """
    if settings.api_base_url:
        if adapter is not None:
            raise ValueError("--adapter needs a local model; unset API_BASE_URL to use one")
        return _remote(settings, settings.model_name, POLICY_TIMEOUT_S, retries=2)
    from alice_app.models.loader import load_adapter, load_causal_lm
    from alice_app.models.local import LocalPolicy

    model, tokenizer = load_causal_lm(settings)
    model_id = settings.model_name
    if adapter is not None:
        model = load_adapter(model, adapter)
        model_id = f"{model_id}+{adapter_name(adapter)}"
    return LocalPolicy(model, tokenizer, model_id)


def adapter_name(adapter: str | Path) -> str:
    """How a model id names a LoRA adapter folder: its last two path parts, so a training run's
    ``runs/run-7/adapter`` reads ``run-7/adapter`` (every run's folder is called ``adapter``)."""
    path = Path(adapter)
    return f"{path.parent.name}/{path.name}" if path.parent.name else path.name


def build_oracle(settings: Settings, policy: Policy | None = None):
    """The tier-2 oracle named by ALICE_ORACLE (none|api|local).

    A local oracle on the same model as ``policy`` reuses it instead of loading a second copy.
    """
    from alice_app.verify.oracle import NoOracle

    if settings.oracle == "none":
        return NoOracle()
    from alice_app.models.oracle import ApiOracle, LocalOracle

    model_name = settings.oracle_model or settings.model_name
    if settings.oracle == "api":
        if not settings.api_base_url:
            raise ValueError("ALICE_ORACLE=api needs API_BASE_URL (an OpenAI-compatible endpoint)")
        return ApiOracle(_remote(settings, model_name, ORACLE_TIMEOUT_S, retries=1))
    if policy is not None and policy.model_id == model_name and not settings.api_base_url:
        return LocalOracle(policy)
    from alice_app.models.loader import load_causal_lm
    from alice_app.models.local import LocalPolicy

    local = settings.with_overrides(model_name=model_name, api_base_url=None)
    model, tokenizer = load_causal_lm(local)
    return LocalOracle(LocalPolicy(model, tokenizer, model_name))


def _remote(settings: Settings, model_name: str, timeout: float, retries: int) -> Policy:
    from alice_app.models.remote import OpenAIPolicy

    if model_name == EMBEDDED_MODEL:
        raise ValueError("API_BASE_URL is set: set MODEL_NAME (or ORACLE_MODEL) to the endpoint's model id")
    return OpenAIPolicy(settings.api_base_url, model_name, settings.hf_token, timeout=timeout, retries=retries)
