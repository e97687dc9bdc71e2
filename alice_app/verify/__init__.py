"""The 3-tier verifier: tier 1 programmatic, tier 2 semantic oracle, tier 3 consistency.

Names are loaded lazily so that ``alice_app.failure_modes`` (imported by the feedback writer)
can use ``verify.numbers`` without an import cycle.
"""
from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "VerifierStack": "stack",
    "Oracle": "oracle",
    "OracleJudgement": "oracle",
    "OracleError": "oracle",
    "NoOracle": "oracle",
    "extract_answer": "tier1",
    "answers_equal": "tier1",
    "check": "tier1",
    "consistency": "tier3",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'alice_app.verify' has no attribute {name!r}")
    return getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
