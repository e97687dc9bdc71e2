"""Play ALICE episodes with the embedded model, driving the environment through its server.

The policy runs here; the server only hands out prompts and judges answers, exactly as it would
for an external RL trainer. Start a server, then play:

    uvicorn alice_app.server:app --port 7860
    python examples/play_via_server.py --url http://127.0.0.1:7860 --episodes 3

MODEL_NAME / API_BASE_URL choose another policy (see the README); the embedded SmolLM2 is the default.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from alice_app.config import Settings  # noqa: E402
from alice_app.server.client import AliceEnv  # noqa: E402


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:7860", help="base URL of the ALICE server")
    parser.add_argument("--episodes", type=int, default=3, help="episodes to play")
    parser.add_argument("--family", default="negation_arithmetic", help="task family")
    parser.add_argument("--level", default="easy", choices=["easy", "medium", "hard"])
    parser.add_argument("--seed", type=int, default=None, help="seed of the first task (random if omitted)")
    parser.add_argument("--max-tokens", type=int, default=48, help="answer length limit")
    args = parser.parse_args(argv)
    if args.episodes < 1:
        parser.error("--episodes must be at least 1")
    return args


def play_episode(env, policy, args: argparse.Namespace, index: int) -> dict:
    """One episode: the model answers each turn's chat history until the server says done."""
    seed = None if args.seed is None else args.seed + index
    result = env.reset(family=args.family, level=args.level, seed=seed)
    print(f"\n[{result.observation.task_id}] {result.observation.prompt}")
    while not result.done:
        reply = policy.generate([result.observation.messages], n=1, temperature=0.0,
                                max_tokens=args.max_tokens)[0][0]
        result = env.step(reply)
        obs = result.observation
        mark = "right" if obs.verdict["is_correct"] else "wrong"
        print(f"  turn {obs.turn}: {reply.strip()[:80]!r} -> {mark}, reward {result.reward:+.2f}")
    return {"task_id": result.observation.task_id, "solved": result.observation.verdict["is_correct"],
            "turns": result.observation.turn, "reward": result.reward}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from alice_app.models.factory import build_policy

    policy = build_policy(Settings.from_env())
    with AliceEnv(base_url=args.url).sync() as env:
        outcomes = [play_episode(env, policy, args, i) for i in range(args.episodes)]
    solved = sum(o["solved"] for o in outcomes)
    print(f"\nsolved {solved}/{len(outcomes)} episodes; "
          f"mean turns {sum(o['turns'] for o in outcomes) / len(outcomes):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
