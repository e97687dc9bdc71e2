"""Episodes the server holds between HTTP requests.

OpenEnv's HTTP ``/reset`` and ``/step`` build a fresh environment for every request, so an
episode started over HTTP would be lost before its first step. The server keeps each episode
here under its own unguessable id, bound to the client that started it (another client asking
for it gets the same 404 as for an id that never existed), bounded: a client holds at most
``per_client`` episodes (its own oldest goes first, so one client's flood cannot evict another
client's episode), and the least recently used episode is dropped when ``capacity`` is reached.
WebSocket sessions hold their episode themselves.
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
    owner: str | None = None  # the client that started it (guard.client_key); None = anyone
    lock: threading.Lock = field(default_factory=threading.Lock)


class EpisodeRegistry:
    """A thread-safe, bounded map from episode id to slot (least recently used goes first)."""

    def __init__(self, capacity: int, per_client: int | None = None):
        if capacity < 1:
            raise ValueError("EpisodeRegistry capacity must be at least 1")
        self.capacity = capacity
        self.per_client = per_client or capacity
        self._slots: OrderedDict[str, EpisodeSlot] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, slot: EpisodeSlot) -> None:
        """Hold ``slot``; an id already held by another episode is refused (409), never replaced."""
        with self._lock:
            held = self._slots.get(slot.episode_id)
            if held is not None and held is not slot:
                raise RequestError(409, f"episode_id {slot.episode_id!r} is already in use; "
                                        "leave episode_id out and the server picks a fresh one")
            self._slots[slot.episode_id] = slot
            self._slots.move_to_end(slot.episode_id)
            if slot.owner is not None:
                mine = [key for key, held in self._slots.items() if held.owner == slot.owner]
                for key in mine[: max(0, len(mine) - self.per_client)]:
                    del self._slots[key]
            while len(self._slots) > self.capacity:
                self._slots.popitem(last=False)

    def get(self, episode_id: str, owner: str | None = None) -> EpisodeSlot:
        with self._lock:
            slot = self._slots.get(episode_id)
            if slot is None or (slot.owner is not None and slot.owner != owner):
                raise RequestError(
                    404,
                    f"unknown episode_id {str(episode_id)[:80]!r}: it was never started here (by you) or has "
                    f"expired (the server keeps the last {self.capacity}); call /reset to start one",
                )
            self._slots.move_to_end(episode_id)
            return slot

    def __contains__(self, episode_id: object) -> bool:
        with self._lock:
            return episode_id in self._slots

    def __len__(self) -> int:
        with self._lock:
            return len(self._slots)
