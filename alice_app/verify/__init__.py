"""The 3-tier verifier: tier 1 programmatic, tier 2 semantic oracle, tier 3 consistency."""
from __future__ import annotations

from .oracle import NoOracle, Oracle, OracleError, OracleJudgement
from .stack import VerifierStack
from .tier1 import answers_equal, check, extract_answer
from .tier3 import consistency

__all__ = ["NoOracle", "Oracle", "OracleError", "OracleJudgement", "VerifierStack", "answers_equal", "check",
           "consistency", "extract_answer"]
