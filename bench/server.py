"""Episode steps per second over WebSocket, with 1 and 20 concurrent clients.

The server runs as its own process (``uvicorn alice_app.server:app``, temporary data folder), the
clients are OpenEnv ``EnvClient``s (``AliceEnv``) in this one; the policy is excluded: every answer
is a scripted wrong one, so each episode plays all five turns and banks one failure.

    python bench/server.py                      # 1 and 20 clients, 20 episodes each
    python bench/server.py --clients 1 5 20 --episodes 10
"""
from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from alice_app.server.client import AliceEnv  # noqa: E402

WRONG = "Answer: -987654"  # no task of any level has this answer


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(data_dir: str, max_sessions: int, extra_env: dict[str, str] | None = None
                 ) -> tuple[subprocess.Popen, str]:
    """uvicorn serving ALICE on a free local port over ``data_dir``; returns the process and its URL
    once /health answers (120 s at most)."""
    port = free_port()
    env = {**os.environ, "ALICE_DATA_DIR": data_dir, "ALICE_MAX_SESSIONS": str(max_sessions), **(extra_env or {})}
    env.pop("ALICE_DB", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "alice_app.server:app", "--host", "127.0.0.1", "--port", str(port),
         "--log-level", "warning"], cwd=ROOT, env=env)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/health", timeout=2).status_code == 200:
                return proc, url
        except httpx.TransportError:
            time.sleep(0.2)
    proc.terminate()
    raise RuntimeError("the server did not start within 120 s")


async def client(url: str, episodes: int, seed0: int, latencies: list[float]) -> int:
    steps = 0
    async with AliceEnv(base_url=url) as env:
        for i in range(episodes):
            result = await env.reset(family="negation_arithmetic", level="easy", seed=seed0 + i, mode="hunt")
            while not result.done:
                start = time.perf_counter()
                result = await env.step(WRONG)
                latencies.append(time.perf_counter() - start)
                steps += 1
    return steps


async def run(url: str, clients: int, episodes: int, seed0: int) -> dict:
    latencies: list[float] = []
    start = time.perf_counter()
    steps = await asyncio.gather(*(client(url, episodes, seed0 + c * episodes, latencies) for c in range(clients)))
    wall = time.perf_counter() - start
    q = statistics.quantiles(latencies, n=100)
    return {"clients": clients, "steps": sum(steps), "wall": wall, "p50": q[49] * 1000, "p99": q[98] * 1000}


def main() -> None:
    parser = argparse.ArgumentParser(description="ALICE server step throughput over WebSocket")
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 20])
    parser.add_argument("--episodes", type=int, default=20, help="episodes per client")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data_dir:
        proc, url = start_server(data_dir, max_sessions=max(args.clients))
        try:
            asyncio.run(run(url, 1, 1, seed0=10**6))  # warm-up: imports, first database writes
            for n, clients in enumerate(args.clients):
                r = asyncio.run(run(url, clients, args.episodes, seed0=n * 10**5))
                print(f"clients={r['clients']:>3}  steps={r['steps']:>5}  "
                      f"steps/s={r['steps'] / r['wall']:8.1f}  p50={r['p50']:7.2f} ms  p99={r['p99']:7.2f} ms")
        finally:
            proc.terminate()
            proc.wait(timeout=20)
    print(f"cpu cores: {os.cpu_count()}  python {sys.version.split()[0]}  (server and clients on one machine)")


if __name__ == "__main__":
    main()
