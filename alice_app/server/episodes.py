"""Episodes the server holds between HTTP requests.

OpenEnv's HTTP ``/reset`` and ``/step`` build a fresh environment for every request, so an
episode started over HTTP would be lost before its first step. The server keeps each episode
here under its own id (never one shared episode), bounded: the least recently used episode
is dropped when ``capacity`` is reached. WebSocket sessions hold their episode themselves.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any


class RequestError(Exception):
    """A request the server refuses, with the HTTP status that says why."""

    def __init__(self, status_code: int, message: str):
        super().__init__(message)
        self.status_code = status_code
        self.message = message


@dataclass
class EpisodeSlot:
    """One episode: its engine environment and the lock that keeps its steps in order."""

    episode_id: str
    env: Any  # alice_app.environment.AliceEnvironment
    lock: threading.Lock = field(default_factory=threading.Lock)


class EpisodeRegistry:
    """A thread-safe, bounded map from episode id to slot (least recently used goes first)."""

    def __init__(self, capacity: int):
        if capacity < 1:
            raise ValueError("EpisodeRegistry capacity must be at least 1")
        self.capacity = capacity
        self._slots: OrderedDict[str, EpisodeSlot] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, slot: EpisodeSlot) -> None:
        with self._lock:
            self._slots[slot.episode_id] = slot
            self._slots.move_to_end(slot.episode_id)
            while len(self._slots) > self.capacity:
                self._slots.popitem(last=False)

    def get(self, episode_id: str) -> EpisodeSlot:
        with self._lock:
            slot = self._slots.get(episode_id)
            if slot is None:
                raise RequestError(
                    404,
                    f"unknown episode_id {episode_id!r}: it was never started here or has expired "
                    f"(the server keeps the last {self.capacity}); call /reset to start one",
                )
            self._slots.move_to_end(episode_id)
            return slot

    def __len__(self) -> int:
        with self._lock:
            return len(self._slots)
