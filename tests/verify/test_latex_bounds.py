"""The LaTeX layer is bounded: answers whose evaluation cost can explode are refused before sympy
sees them, anything else runs in a sandbox worker that is killed at its deadline."""
import time

import pytest

from alice_app.verify import VerifierStack, latex, symbolic
from alice_app.verify.sandbox import SandboxError, WorkerPool

BOMBS = ["$100000000!$", "$10^{8}!$", "$9^{64}!$", "$\\Gamma(10^{8})$", "$\\binom{10^{9}}{5*10^{8}}$",
         "$(10^{8})!!$", "$\\prod_{i=1}^{10^{8}} i$", "Answer: $\\Gamma(10^{8})$", "\\boxed{100000000!}",
         "Answer: \\binom{10^{9}}{5*10^{8}}", "$\\sum_{i=1}^{10^{12}} i^{i}$"]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("bomb", BOMBS)
def test_latex_bombs_are_answered_quickly_and_never_accepted(make_task, bomb):
    stack = VerifierStack()
    stack.verify(make_task(), "$\\frac{1}{2}$")  # the worker's one-off start-up is not timed
    start = time.perf_counter()
    verdict = stack.verify(make_task(), bomb)
    assert time.perf_counter() - start < 2.0
    assert not verdict.is_correct and verdict.feedback


@pytest.mark.parametrize("snippet", ["$10^{8}!$", "$\\Gamma(5)$", "$\\binom{9}{3}$", "$\\prod_{i=1}^{3} i$", "$3!$"])
def test_costly_constructs_are_refused_from_the_text(snippet):
    assert latex.costly_construct(snippet)
    assert latex.latex_value(snippet) is None


@pytest.mark.parametrize("snippet", ["$\\frac{3}{4}$", "$\\sqrt{4}$", "Great! $7$", "$2^{10}$"])
def test_ordinary_latex_is_not_refused(snippet):
    assert latex.costly_construct(snippet) is None
    assert latex.latex_value(snippet) is not None


def test_equivalence_refusal_gives_its_reason():
    proved, why = latex.equivalent("120", "5!")
    assert not proved and "cost can explode" in why


@pytest.mark.parametrize("text", ["factorial(10**8)", "gamma(10**8)", "binomial(10**9, 5*10**8)",
                                  "2**(2**64)", "(10**12)**(10**6)"])
def test_the_worker_refuses_costly_expressions_structurally(text):
    import sympy

    expr = sympy.sympify(text, evaluate=False)
    assert symbolic.refusal(expr) is not None
    assert symbolic.small_value(expr) is None


def test_small_expressions_are_evaluated_in_the_worker():
    import sympy

    assert symbolic.small_value(sympy.sympify("7 - 3", evaluate=False)) == 4
    assert symbolic.latex_value("$\\frac{6}{8}$") == "3/4"


@pytest.mark.timeout(120)
def test_a_worker_that_overruns_its_deadline_is_killed_and_replaced():
    pool = WorkerPool("alice_app.verify.symbolic", size=1, deadline_s=5.0)
    try:
        assert pool.call({"op": "ping"}) == "pong"  # started and warm
        start = time.perf_counter()
        with pytest.raises(SandboxError, match="no answer within"):
            pool.call({"op": "value", "snippet": "$\\frac{1}{2}$"}, deadline_s=0.0005)
        assert time.perf_counter() - start < 1.0
        assert pool.call({"op": "value", "snippet": "$\\frac{1}{2}$"}) == "1/2"  # a fresh worker
    finally:
        pool.close()


def test_a_worker_error_is_reported_not_raised_as_a_crash():
    pool = WorkerPool("alice_app.verify.symbolic", size=1)
    try:
        with pytest.raises(SandboxError, match="unknown op"):
            pool.call({"op": "nonsense"})
        assert pool.call({"op": "ping"}) == "pong"
    finally:
        pool.close()
