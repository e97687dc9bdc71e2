"""Run untrusted computations in worker processes that are killed when they overrun a deadline.

sympy and math-verify can spend hours on a few characters (``$100000000!$``), and a thread
cannot be stopped, so the symbolic layer runs in child processes
(``python -m <module>``, speaking one JSON object per line on stdin/stdout). A request that
gets no answer within ``deadline_s`` kills its worker (a fresh one starts on the next request)
and raises ``SandboxError``; so does a request that finds every worker busy for that long.
Workers exit on their own when the parent's end of the pipe closes.
"""
from __future__ import annotations

import atexit
import json
import logging
import os
import queue
import select
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)
_ROOT = str(Path(__file__).resolve().parents[2])  # the folder holding the alice_app package
MAX_LINE_BYTES = 1 << 20


class SandboxError(RuntimeError):
    """No answer within the deadline, no free worker, or the worker died."""


class _Worker:
    def __init__(self, module: str, startup_s: float):
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [_ROOT, os.environ.get("PYTHONPATH")]))}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", module], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, env=env, bufsize=0,
        )
        self._startup_s = startup_s
        self._ready = False

    def request(self, payload: dict, deadline_s: float) -> Any:
        if not self._ready:  # importing sympy is not part of a request's budget
            self._read_line(self._startup_s)
            self._ready = True
        self.proc.stdin.write(json.dumps(payload).encode() + b"\n")
        self.proc.stdin.flush()
        reply = json.loads(self._read_line(deadline_s))
        if "error" in reply:
            raise SandboxError(f"the worker failed: {reply['error']}")
        return reply.get("ok")

    def _read_line(self, timeout_s: float) -> bytes:
        end, data, fd = time.monotonic() + timeout_s, b"", self.proc.stdout.fileno()
        while not data.endswith(b"\n"):
            left = end - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError(f"no answer within {timeout_s:g} s")
            chunk = os.read(fd, 65536)
            if not chunk or len(data) > MAX_LINE_BYTES:
                raise EOFError("the worker exited")
            data += chunk
        return data

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - the kernel reaps it later
            pass


class WorkerPool:
    """Up to ``size`` workers running ``module``; thread-safe. ``call`` answers within about
    ``deadline_s`` (plus a worker's one-off start-up) or raises ``SandboxError``."""

    def __init__(self, module: str, *, size: int = 2, deadline_s: float = 2.0, startup_s: float = 60.0):
        if size < 1 or deadline_s <= 0:
            raise ValueError("a worker pool needs size >= 1 and a positive deadline")
        self.module, self.deadline_s, self.startup_s = module, deadline_s, startup_s
        self._slots = threading.BoundedSemaphore(size)
        self._idle: queue.LifoQueue[_Worker] = queue.LifoQueue()
        self._all: set[_Worker] = set()
        self._lock = threading.Lock()
        atexit.register(self.close)

    def call(self, payload: dict, deadline_s: float | None = None) -> Any:
        deadline = deadline_s or self.deadline_s
        if not self._slots.acquire(timeout=deadline):
            raise SandboxError(f"every worker stayed busy for {deadline:g} s")
        try:
            worker = self._take()
            try:
                result = worker.request(payload, deadline)
            except (TimeoutError, EOFError, OSError, ValueError) as exc:
                self._discard(worker)
                log.warning("%s: %s; worker killed", self.module, exc)
                raise SandboxError(str(exc)) from None
            except SandboxError:
                self._idle.put(worker)
                raise
            self._idle.put(worker)
            return result
        finally:
            self._slots.release()

    def _take(self) -> _Worker:
        try:
            worker = self._idle.get_nowait()
            if worker.proc.poll() is None:
                return worker
            self._discard(worker)
        except queue.Empty:
            pass
        worker = _Worker(self.module, self.startup_s)
        with self._lock:
            self._all.add(worker)
        return worker

    def _discard(self, worker: _Worker) -> None:
        worker.kill()
        with self._lock:
            self._all.discard(worker)

    def close(self) -> None:
        with self._lock:
            workers, self._all = list(self._all), set()
        for worker in workers:
            worker.kill()
