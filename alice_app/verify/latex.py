"""The math-verify layer: LaTeX answers (\\frac, \\boxed, $…$) and equivalent forms, bounded.

A few characters can make sympy run for hours (``$100000000!$``, ``$\\Gamma(10^{8})$``), so:
1. constructs whose cost can explode (factorials, gamma, binomials, sums, products, integrals,
   limits) are refused here, from the text, before sympy ever sees them;
2. everything else is parsed and evaluated in a sandbox worker process (``symbolic.py``), which
   refuses large expressions again structurally and is killed if it has not answered within
   ``DEADLINE_S``. A refused or overrun answer is left undecided, with the reason.
"""
from __future__ import annotations

import re
import threading
from functools import lru_cache

from .sandbox import SandboxError, WorkerPool
from .symbolic import MAX_SNIPPET_CHARS

DEADLINE_S = 2.0  # the most one symbolic evaluation may take
WORKERS = 2
_COSTLY_RE = re.compile(
    r"[\d)}\]]\s*!"  # n!, (n)!, {n}!!
    r"|\\(?:Gamma|Pi|[dt]?binom|choose|prod|coprod|sum|i*int|oint|lim|liminf|limsup|operatorname)(?![a-zA-Z])"
    r"|\b(?:factorial|gamma|binomial|Product|Sum|Integral)\s*\(",
)


def costly_construct(snippet: str) -> str | None:
    """The construct of ``snippet`` whose evaluation cost can explode ("\\Gamma", "!"), or None."""
    match = _COSTLY_RE.search(snippet[-MAX_SNIPPET_CHARS:])
    return None if match is None else match.group(0).strip()[-12:]


@lru_cache(maxsize=1)
def pool() -> WorkerPool:
    """The process's symbolic workers, started on first use."""
    return WorkerPool("alice_app.verify.symbolic", size=WORKERS, deadline_s=DEADLINE_S)


def warm_up() -> None:
    """Start a worker in the background, so that the first LaTeX answer does not wait for
    sympy to import (servers call this at start-up)."""
    def ping() -> None:
        try:
            pool().call({"op": "ping"})
        except SandboxError:
            pass

    threading.Thread(target=ping, name="latex-warm-up", daemon=True).start()


def latex_value(snippet: str) -> str | None:
    """The value of the first expression in ``snippet`` ("7", "3/4"), else its text ("sqrt(2)");
    None when there is none, or it is refused or overran the deadline."""
    snippet = snippet[-MAX_SNIPPET_CHARS:]
    if costly_construct(snippet):
        return None
    try:
        result = pool().call({"op": "value", "snippet": snippet})
    except SandboxError:
        return None
    return result if isinstance(result, str) else None


def equivalent(expected: str, answer: str) -> tuple[bool, str]:
    """(math-verify proves ``answer`` equal to ``expected``, why not when it cannot)."""
    construct = costly_construct(answer)
    if construct:
        return False, f"uses {construct}, whose cost can explode; left undecided"
    try:
        proved, reason = pool().call({"op": "equivalent", "expected": expected, "answer": answer})
    except SandboxError as exc:
        return False, f"symbolic comparison gave up ({exc}); left undecided"
    return bool(proved), str(reason)
