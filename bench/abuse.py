"""Abuse probes against a live ``uvicorn alice_app.server:app`` on 127.0.0.1, with an innocent
client playing episodes at the same time.

    python bench/abuse.py [--seconds 20] [--max-rounds 200]

The server runs as a public Space would be configured: ``ALICE_API_TOKEN`` and
``ALICE_ADMIN_PASSWORD`` set, ``ALICE_WRITES_PER_MINUTE=120``, ``ALICE_MAX_SESSIONS=8``,
``ALICE_SESSION_IDLE_S=5``, and ``ALICE_BEHIND_PROXY=1`` so that the bench can play distinct
clients by the X-Forwarded-For header a proxy would set. The attacker replays the probes of issue
14 round after round (bounded: ``--seconds`` and ``--max-rounds``): writes without the token, LaTeX
bombs, a /reset flood (also from a new address of one IPv6 /64 each time), episode takeover and
/state peeking, HTTP /mcp session creation, binary and surrogate input, a 1 MB body, idle sessions;
and those of the workbench at /web: a 2 MB body to
its queue, an upload, guarded writes (tags, deletion, curriculum, training) without the admin
password, a burst of ten calls of one event, and a flood of new episodes (writes) from one client.
Prints the figures the issue asks for: requests tried, requests over 2 s, writes without
authorisation, and the p99 of the innocent client's steps while the attacker runs (targets: 0, 0,
0, < 200 ms), plus the workbench's figures and how long the server takes to exit on SIGTERM.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
from websockets.asyncio.client import connect as ws_connect

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from alice_app.ui.episode import CHOSEN, TEMPLATE  # noqa: E402  (the Episode tab's source and wording)
from bench.server import start_server  # noqa: E402

TOKEN = "bench-token"
ADMIN_PASSWORD = "bench-admin"
WORKBENCH_API = "/web/gradio_api"
ANY = "(all)"
# Workbench writes that need the admin password, with inputs that would change shared data.
GUARDED_UI_WRITES = {
    "add_tags": ["1-50", "pwned", "", "guess"], "delete_failures": ["1-50", "", True, "guess"],
    "save_curriculum": ["1", "0.1", "0.05", "1", "0.1", "0.9", "1", "guess"], "reset_curriculum": [True, "guess"],
    "delete_challenger_template": ["t1", "guess"],
}
SLOW_S = 2.0
WARM_UP_S = 10.0
BOMBS = ["$100000000!$", "$10^{8}!$", "$9^{64}!$", "$\\Gamma(10^{8})$", "$\\binom{10^{9}}{5*10^{8}}$",
         "$(10^{8})!!$", "$\\prod_{i=1}^{10^{8}} i$", "Answer: \\sqrt{2^{2^{64}}}", "$\\sum_{i=1}^{10^{9}} i^i$"]


class Tally:
    """Every attacker request: how long it took, and whether it was a write that got through."""

    def __init__(self):
        self.times: list[float] = []
        self.slow: list[str] = []
        self.labelled: list[tuple[float, str]] = []
        self.unauthorised_writes = 0
        self.workbench: dict[str, int] = {"oversize_accepted": 0, "uploads_accepted": 0, "burst_accepted": 0,
                                          "bursts": 0, "writes_accepted": 0, "writes_tried": 0}
        self.rotated = {"tried": 0, "accepted": 0}  # resets from ever new addresses of one IPv6 /64
        self.lock = threading.Lock()

    def timed(self, call, *, unauthorised_write_if=None, label: str = ""):
        start = time.perf_counter()
        try:
            result = call()
        except Exception as exc:  # a refused or dropped connection still counts as a request tried
            result = exc
        with self.lock:
            self.times.append(time.perf_counter() - start)
            self.labelled.append((self.times[-1], label or "request"))
            if self.times[-1] > SLOW_S:
                self.slow.append(f"{label or 'request'}: {self.times[-1]:.1f} s")
            if unauthorised_write_if is not None and unauthorised_write_if(result):
                self.unauthorised_writes += 1
        return result


# A public Space's settings, tightened so the probes reach the limits.
SERVER_ENV = {"ALICE_API_TOKEN": TOKEN, "ALICE_WRITES_PER_MINUTE": "120", "ALICE_SESSION_IDLE_S": "5",
              "ALICE_BEHIND_PROXY": "1", "ALICE_ADMIN_PASSWORD": ADMIN_PASSWORD}


def headers(client: str, token: bool = True) -> dict:
    return {"x-forwarded-for": client, **({"authorization": f"Bearer {TOKEN}"} if token else {})}


def innocent(url: str, seconds: float) -> dict:
    """Plays hunt episodes over HTTP with plain wrong answers at a person's pace (inside the
    write budget) for ``seconds``, timing every step: [(wall-clock start, seconds taken)]."""
    latencies, errors, deadline, seed = [], [], time.time() + seconds, 0
    with httpx.Client(base_url=url, timeout=30, headers=headers("10.0.0.1")) as http:
        while time.time() < deadline:
            seed += 1
            reset = http.post("/reset", json={"family": "negation_arithmetic", "level": "easy", "seed": seed,
                                              "mode": "hunt"})
            if reset.status_code != 200:
                errors.append(f"reset {reset.status_code}: {reset.text[:100]}")
                time.sleep(1)
                continue
            episode_id = reset.json()["observation"]["episode_id"]
            for turn in range(5):
                time.sleep(0.6)
                start, began = time.perf_counter(), time.time()
                reply = http.post("/step", json={"action": {"response": f"Answer: {1000 + turn}"},
                                                 "episode_id": episode_id})
                latencies.append((began, time.perf_counter() - start))
                if reply.status_code != 200:
                    errors.append(f"step {reply.status_code}: {reply.text[:100]}")
    return {"latencies": latencies, "errors": errors}


def start_innocent(url: str, seconds: float) -> subprocess.Popen:
    """The innocent client in its own process, so the attacker's client work cannot slow it."""
    return subprocess.Popen([sys.executable, __file__, "--innocent", url, "--seconds", str(seconds)],
                            stdout=subprocess.PIPE, text=True)


def attack(url: str, seconds: float, max_rounds: int, tally: Tally) -> int:
    """Replays every probe, round after round, for ``seconds`` (at most ``max_rounds`` rounds)."""
    deadline, rounds = time.monotonic() + seconds, 0
    with httpx.Client(base_url=url, timeout=60) as http:
        victim = http.post("/reset", json={"family": "negation_arithmetic", "seed": 1},
                           headers=headers("10.0.0.2")).json()["observation"]["episode_id"]
        while rounds < max_rounds and time.monotonic() < deadline:
            attack_round(http, url, victim, tally)
            rounds += 1
    return rounds


def attack_round(http: httpx.Client, url: str, victim: str, tally: Tally) -> None:
    ok = lambda r: isinstance(r, httpx.Response) and r.status_code < 300  # noqa: E731
    anon, mallory = headers("10.6.6.6", token=False), headers("10.6.6.7")
    for path, body in (("/reset", {}), ("/step", {"action": {"response": "7"}, "episode_id": victim})):
        tally.timed(lambda: http.post(path, json=body, headers=anon), unauthorised_write_if=ok,
                    label=f"anonymous {path}")
    tally.timed(lambda: http.post("/reset", json={"episode_id": victim}, headers=mallory),
                unauthorised_write_if=ok, label="takeover /reset")  # reusing someone's id
    tally.timed(lambda: http.post("/step", json={"action": {"response": "7"}, "episode_id": victim},
                                  headers=mallory), unauthorised_write_if=ok, label="takeover /step")
    tally.timed(lambda: http.get("/state", params={"episode_id": victim}, headers=mallory),
                unauthorised_write_if=ok, label="peek /state")  # another client's episode
    for bomb in BOMBS:
        episode = tally.timed(lambda: http.post("/reset", json={"seed": 3}, headers=mallory), label="reset")
        if ok(episode):
            episode_id = episode.json()["observation"]["episode_id"]
            tally.timed(lambda: http.post("/step", json={"action": {"response": bomb},
                                                         "episode_id": episode_id}, headers=mallory),
                        label=f"step {bomb}")
    for _ in range(30):  # a reset flood: the write budget answers 429 at once
        tally.timed(lambda: http.post("/reset", json={}, headers=mallory), label="reset flood")
    for _ in range(30):  # the same flood from a new address of one IPv6 /64 each time: still one client
        rotated = headers(f"2001:db8:6:6::{tally.rotated['tried'] + 1:x}")
        reply = tally.timed(lambda: http.post("/reset", json={}, headers=rotated), label="IPv6 rotation flood")
        tally.rotated["tried"] += 1
        tally.rotated["accepted"] += ok(reply)
    create = {"jsonrpc": "2.0", "method": "openenv/session/create", "params": {}, "id": 1}
    for _ in range(10):
        tally.timed(lambda: http.post("/mcp", json=create, headers=mallory),
                    unauthorised_write_if=lambda r: ok(r) and "result" in r.json(), label="/mcp session")
    raw = b'{"action": {"response": "\\ud800"}, "episode_id": "x"}'
    tally.timed(lambda: http.post("/step", content=raw, headers={**mallory, "content-type": "application/json"}),
                label="surrogate /step")
    tally.timed(lambda: http.post("/step", json={"action": {"response": "7" * 1_000_000}, "episode_id": "x"},
                                  headers=mallory), label="1 MB /step")
    asyncio.run(websocket_probes(url, tally))
    workbench_probes(http, tally)


class Workbench:
    """The workbench's queue as gradio_client reaches it: join an event, read its result."""

    def __init__(self, http: httpx.Client):
        self.http = http
        config = http.get("/web/config").json()
        self.fns = {dep["api_name"]: dep["id"] for dep in config["dependencies"] if dep.get("api_name")}
        self.sessions = 0

    def join(self, api_name: str, data: list, client: str, session: str | None = None) -> httpx.Response:
        self.sessions += 1
        body = {"data": data, "fn_index": self.fns[api_name], "session_hash": session or f"bench{self.sessions}"}
        return self.http.post(WORKBENCH_API + "/queue/join", json=body, headers={"x-forwarded-for": client})

    def call(self, api_name: str, data: list, client: str) -> list | None:
        """The event's outputs, or None when the queue refused it."""
        session = f"bench-call{self.sessions}"
        if self.join(api_name, data, client, session).status_code != 200:
            return None
        with self.http.stream("GET", WORKBENCH_API + "/queue/data", params={"session_hash": session}) as stream:
            for line in stream.iter_lines():
                message = json.loads(line[5:]) if line.startswith("data:") else {}
                if message.get("msg") == "process_completed":
                    return (message.get("output") or {}).get("data")
        return None


def workbench_probes(http: httpx.Client, tally: Tally) -> None:
    """The workbench at /web: oversized input, an upload, guarded writes without the password, a
    burst of one event and a flood of episode writes, from one client."""
    bench, eve = Workbench(http), "10.6.6.10"
    big = {"data": [None, "7" * 2_000_000], "fn_index": bench.fns["answer"], "session_hash": "big"}
    reply = tally.timed(lambda: http.post(WORKBENCH_API + "/queue/join", json=big, headers={"x-forwarded-for": eve}),
                        label="2 MB workbench body")
    tally.workbench["oversize_accepted"] += isinstance(reply, httpx.Response) and reply.status_code < 300
    reply = tally.timed(lambda: http.post(WORKBENCH_API + "/upload", files={"files": ("x.bin", b"x" * 1_000_000)}),
                        label="workbench upload")
    tally.workbench["uploads_accepted"] += isinstance(reply, httpx.Response) and reply.status_code < 300
    for api_name, data in GUARDED_UI_WRITES.items():  # without the password: each must be refused
        tally.timed(lambda: bench.call(api_name, data, eve), label=f"workbench {api_name}",
                    unauthorised_write_if=lambda out: isinstance(out, list) and bool(out)
                    and not str(out[0]).startswith("⚠"))
    search = [ANY, ANY, ANY, "", ANY, "", "", "", ANY]
    burst = [tally.timed(lambda: bench.join("export_jsonl", search, eve), label="workbench export burst")
             for _ in range(10)]
    tally.workbench["burst_accepted"] += sum(isinstance(r, httpx.Response) and r.status_code == 200 for r in burst)
    tally.workbench["bursts"] += 1
    for _ in range(30):  # new episodes: writes, within the client's write budget only
        task = [None, "negation_arithmetic", "easy", "7", CHOSEN, TEMPLATE]
        reply = tally.timed(lambda: bench.join("new_episode", task, eve), label="workbench new_episode flood")
        tally.workbench["writes_tried"] += 1
        tally.workbench["writes_accepted"] += isinstance(reply, httpx.Response) and reply.status_code == 200


async def websocket_probes(url: str, tally: Tally) -> None:
    """An anonymous session, then sessions that send a binary frame and sit idle; each timed."""
    ws_url = url.replace("http", "ws", 1) + "/ws"

    async def anonymous() -> None:
        async with ws_connect(ws_url, additional_headers={"x-forwarded-for": "10.6.6.8"}) as ws:
            reply = json.loads(await ws.recv())  # refused: no token
            if reply.get("type") != "error":
                tally.unauthorised_writes += 1

    async def binary(sockets: list) -> None:
        ws = await ws_connect(ws_url + f"?token={TOKEN}", additional_headers={"x-forwarded-for": "10.6.6.9"})
        sockets.append(ws)
        await ws.send(b"\x00\xffbinary")
        await asyncio.wait_for(ws.recv(), 10)

    sockets: list = []
    for label, probe in [("anonymous websocket", anonymous)] + [("binary frame", lambda: binary(sockets))] * 4:
        start = time.perf_counter()
        try:
            await probe()
        except Exception:  # refused or dropped: still a request tried
            pass
        took = time.perf_counter() - start
        with tally.lock:
            tally.times.append(took)
            tally.labelled.append((took, label))
            if took > SLOW_S:
                tally.slow.append(f"{label}: {took:.1f} s")
    for ws in sockets:  # left idle until now; the idle timeout would close them otherwise
        await ws.close()


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] if ordered else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="how long the attacker runs")
    parser.add_argument("--max-rounds", type=int, default=200, help="at most this many rounds of every probe")
    parser.add_argument("--innocent", metavar="URL", help=argparse.SUPPRESS)  # the innocent client's process
    args = parser.parse_args()
    if args.innocent:
        print(json.dumps(innocent(args.innocent, args.seconds)))
        return
    with tempfile.TemporaryDirectory() as data_dir:
        server, url = start_server(data_dir, max_sessions=8, extra_env=SERVER_ENV)
        try:
            player = start_innocent(url, WARM_UP_S + args.seconds + 5)
            time.sleep(WARM_UP_S)  # the server's background warm-up is done; the innocent client is mid-episode
            tally = Tally()
            start = time.time()
            rounds = attack(url, args.seconds, args.max_rounds, tally)
            end = time.time()
            played = json.loads(player.communicate(timeout=120)[0])
        finally:
            sigterm_start = time.perf_counter()
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=30)
                sigterm_s = time.perf_counter() - sigterm_start
            except subprocess.TimeoutExpired:
                server.kill()
                sigterm_s = float("inf")
    latencies = played["latencies"]
    during = [took for began, took in latencies if start <= began + took and began <= end]
    print(json.dumps({
        "attack_seconds": round(end - start, 1),
        "attack_rounds": rounds,
        "requests_tried": len(tally.times),
        "requests_over_2s": sum(t > SLOW_S for t in tally.times),
        "slow_requests": tally.slow,
        "slowest_three": [f"{label}: {took:.3f} s" for took, label in sorted(tally.labelled, reverse=True)[:3]],
        "writes_without_authorisation": tally.unauthorised_writes,
        "innocent_steps_during_attack": len(during),
        "innocent_step_p99_ms_during_attack": round(1000 * p99(during), 1),
        "innocent_step_p99_ms_overall": round(1000 * p99([took for _, took in latencies]), 1),
        "innocent_errors": played["errors"][:5],
        "workbench_oversized_bodies_accepted": tally.workbench["oversize_accepted"],
        "workbench_uploads_accepted": tally.workbench["uploads_accepted"],
        # at most 2 of one event wait or run at once; one that finished during the burst frees its place
        "workbench_burst_of_10_accepted_per_burst": round(tally.workbench["burst_accepted"]
                                                          / max(1, tally.workbench["bursts"]), 1),
        "workbench_writes_accepted_of_tried": f"{tally.workbench['writes_accepted']} of "
                                              f"{tally.workbench['writes_tried']} (budget: 120 + 120 a minute)",
        "ipv6_rotation_resets_accepted_of_tried": f"{tally.rotated['accepted']} of {tally.rotated['tried']} "
                                                  "(one /64: budget 120 + 120 a minute)",
        "sigterm_exit_s": round(sigterm_s, 2),
    }, indent=2))


if __name__ == "__main__":
    main()
