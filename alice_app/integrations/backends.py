"""Where an adapter's episodes are played: in this process, or on an ALICE OpenEnv server.

Both backends speak plain dicts shaped like the engine's ``Observation.to_dict()`` (task_id,
prompt, turn, kind, done, reward, verdict, feedback, hint, messages, info), so the TRL adapter
and the rollout function never care which one they hold.
"""
from __future__ import annotations

import json
from typing import Any, Callable, Mapping

RESET_KEYS = ("seed", "family", "level", "mode")


def reset_options(row: Mapping[str, Any]) -> dict[str, Any]:
    """A dataset row (as TRL hands it to ``reset(**row)``) → the environment's reset options.

    ``task`` (a Task dict or its JSON, as ALICE's datasets carry it) plays that task; otherwise
    ``family``/``level``/``seed``/``mode`` columns pass through. Every other column (``prompt``,
    ``source``, ...) is the trainer's business and is ignored."""
    options = {key: row[key] for key in RESET_KEYS if row.get(key) is not None}
    task = row.get("task")
    if task is not None:
        options["task"] = json.loads(task) if isinstance(task, str) else dict(task)
    return options


class LocalBackend:
    """An in-process ``AliceEnvironment`` (writes to that process's bank and curriculum)."""

    def __init__(self, environment: Any):
        self.environment = environment

    def reset(self, **options: Any) -> dict[str, Any]:
        return self.environment.reset(**options).to_dict()

    def step(self, text: str) -> dict[str, Any]:
        return self.environment.step(text).to_dict()

    def close(self) -> None:
        pass


class RemoteBackend:
    """An ALICE server reached through OpenEnv's WebSocket client (``AliceEnv``): one session each.

    The wire's reset takes family/level/seed/mode, not a whole task: a row's ``task`` is sent as
    its family, level and seed in hunt mode, which replays the same task for the seeded families
    (ids ``family/level/seed``); tasks with extra parameters cannot be sent over the wire."""

    def __init__(self, base_url: str, **client_kwargs: Any):
        from alice_app.server.client import AliceEnv

        self.client = AliceEnv(base_url=base_url, **client_kwargs).sync()
        self.client.connect()

    def reset(self, **options: Any) -> dict[str, Any]:
        task = options.pop("task", None)
        if task is not None:
            if "#" in str(task.get("id", "")):
                raise ValueError(f"task {task['id']!r} has extra parameters and cannot be replayed over the "
                                 "OpenEnv wire; use the in-process backend for it")
            options.update(family=task["family"], level=task["level"], seed=int(task["seed"]), mode="hunt")
        return _plain(self.client.reset(**options))

    def step(self, text: str) -> dict[str, Any]:
        return _plain(self.client.step(text))

    def close(self) -> None:
        self.client.close()


def backend_factory(services: Any = None, *, base_url: str | None = None, seed: int | None = None,
                    **client_kwargs: Any) -> Callable[[], Any]:
    """A zero-argument maker of episode backends: in this process on ``services`` (its database takes
    the bank and curriculum updates), or on the ALICE OpenEnv server at ``base_url``."""
    if (services is None) == (base_url is None):
        raise ValueError("give exactly one of services (in-process) or base_url (an ALICE OpenEnv server)")
    if base_url is not None:
        return lambda: RemoteBackend(base_url, **client_kwargs)
    return lambda: LocalBackend(services.new_environment(seed=seed, source="trl"))


def _plain(result: Any) -> dict[str, Any]:
    data = result.observation.model_dump()
    data.update(done=bool(result.done), reward=result.reward)
    return data
