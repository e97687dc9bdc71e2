"""Engine throughput: tasks generated + tier-1-verified per second, ALICE vs reasoning-gym.

    python bench/engine.py [--n 10000] [--repeats 3]

ALICE: every family with no scorer of its own (its own task families), cycling through the
levels, seeds 0..n-1; each task's own answer and a wrong answer ("Answer: <answer>1") go through
tier 1 (``verify.tier1.check``). reasoning-gym: ``basic_arithmetic`` with the same n, the
answer and the same wrong answer scored by ``score_answer``. Both sides check their verdicts,
so a fast but wrong verifier fails instead of winning. Rounds are interleaved and the best of
``--repeats`` is kept, since the machine is shared. reasoning-gym's cost is heavy-tailed (a few
items with large divisions take up to a second), so n must be large for a fair figure; the
median and p99 per task are printed too. The last line is the ratio.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from alice_app.tasks import family_names, generate_task, get_family  # noqa: E402
from alice_app.types import LEVELS  # noqa: E402
from alice_app.verify import VerifierStack  # noqa: E402
from alice_app.verify.tier1 import check  # noqa: E402


def alice_families() -> list[str]:
    return [name for name in family_names() if get_family(name).scorer is None]


def alice_round(n: int, families: list[str]) -> list[float]:
    """Seconds per task: generate, then tier-1-check its answer and a wrong one."""
    times = []
    for seed in range(n):
        started = time.perf_counter()
        task = generate_task(families[seed % len(families)], LEVELS[(seed // len(families)) % 3], seed)
        right, wrong = check(task, task.answer), check(task, f"Answer: {task.answer}1")
        times.append(time.perf_counter() - started)
        if not right.is_correct or wrong.is_correct:
            raise AssertionError(f"tier 1 misjudged {task.id}")
    return times


def reasoning_gym_round(n: int) -> list[float]:
    """Seconds per item: generate (``dataset[i]``), then score its answer and a wrong one."""
    import reasoning_gym

    dataset = reasoning_gym.create_dataset("basic_arithmetic", size=n, seed=0)
    times = []
    for index in range(n):
        started = time.perf_counter()
        entry = dataset[index]
        right = dataset.score_answer(entry["answer"], entry)
        wrong = dataset.score_answer(entry["answer"] + "1", entry)
        times.append(time.perf_counter() - started)
        if right != 1.0 or wrong >= 1.0:
            raise AssertionError(f"score_answer misjudged {entry['question']!r}")
    return times


def stack_round(n: int, families: list[str]) -> list[float]:
    """The full stack (feedback and failure diagnosis included), for information."""
    stack, times = VerifierStack(), []
    for seed in range(n):
        started = time.perf_counter()
        task = generate_task(families[seed % len(families)], LEVELS[(seed // len(families)) % 3], seed)
        stack.verify(task, task.answer)
        stack.verify(task, f"Answer: {task.answer}1")
        times.append(time.perf_counter() - started)
    return times


ADVERSARIAL = {
    "1 MB of one digit": "1" * 1_000_000,
    "1 MB of control characters": "".join(chr(i % 32) for i in range(1_000_000)),
    "100k unclosed \\boxed{": "\\boxed{" * 100_000,
    "100k $x$ (LaTeX everywhere)": "$x$ " * 100_000,
    "2000 LaTeX answer markers": "Answer: \\sqrt{\\sqrt{2}} " * 2000,
    "1.2 MB of number words": "seven " * 200_000,
    "tower of powers": "Answer: 2^{2^{2^{64}}}",
    "10k nested parentheses": "Answer: " + "(" * 5000 + "1" + ")" * 5000,
}


def worst_cases(families: list[str]) -> None:
    """The slowest single verification of a hostile reply (warm caches, full stack)."""
    stack = VerifierStack()
    task = generate_task(families[0], "easy", 0)
    for label, reply in ADVERSARIAL.items():
        stack.verify(task, reply)  # warm: math-verify's first call imports sympy
        started = time.perf_counter()
        stack.verify(task, reply)
        print(f"hostile reply, {label}: {(time.perf_counter() - started) * 1e3:.1f} ms")


def summary(label: str, rounds: list[list[float]]) -> float:
    """Print the best round's throughput with its median and 99th-percentile task; return tasks/s."""
    best = sorted(min(rounds, key=sum))
    rate = len(best) / sum(best)
    median, p99 = best[len(best) // 2] * 1e6, best[int(len(best) * 0.99)] * 1e6
    print(f"{label}: {rate:,.0f} tasks/s (median {median:.0f} µs/task, p99 {p99:.0f} µs, n={len(best)})")
    return rate


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=10000, help="tasks per round (default 10000)")
    parser.add_argument("--repeats", type=int, default=3, help="rounds per side; the best is kept (default 3)")
    args = parser.parse_args(argv)
    if args.n < 1 or args.repeats < 1:
        parser.error("--n and --repeats must be at least 1")
    families = alice_families()
    alice_round(50, families), reasoning_gym_round(50), stack_round(50, families)  # imports, regex caches
    alice, gym, stack = [], [], []
    for _ in range(args.repeats):
        alice.append(alice_round(args.n, families))
        gym.append(reasoning_gym_round(args.n))
        stack.append(stack_round(args.n, families))
    print(f"alice families: {', '.join(families)}")
    alice_rate = summary("alice: generate + tier-1 check of the answer and a wrong answer", alice)
    gym_rate = summary("reasoning-gym basic_arithmetic: generate + score_answer of both", gym)
    summary("alice, full verifier stack (feedback + failure diagnosis), for information", stack)
    worst_cases(families)
    print(f"ratio (alice/reasoning-gym throughput): {alice_rate / gym_rate:.2f}")


if __name__ == "__main__":
    main()
