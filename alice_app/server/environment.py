"""The ALICE engine behind OpenEnv's ``Environment`` interface.

OpenEnv calls the factory once per WebSocket session (that session keeps its instance, so each
session plays its own episode) and once per HTTP request (then the episode is found again by
``episode_id`` in the shared ``EpisodeRegistry``). The failure bank and the curriculum are shared
through the one SQLite database of ``services``.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional

from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import EnvironmentMetadata
from pydantic import ValidationError

from alice_app import about
from alice_app.server.episodes import EpisodeRegistry, EpisodeSlot, RequestError
from alice_app.server.guard import current_client
from alice_app.server.models import AliceAction, AliceObservation, AliceState, ResetOptions


def parse_reset_options(options: Mapping[str, Any]) -> ResetOptions:
    """Validate reset options into a ``ResetOptions`` or raise a 422 naming what is wrong."""
    try:
        return ResetOptions.model_validate(dict(options))
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'options'}: {err['msg']}" for err in exc.errors()
        )
        raise RequestError(422, f"invalid reset options: {problems}") from None


def _plain(value: Any) -> Any:
    return value.to_dict() if hasattr(value, "to_dict") else value


def to_observation(obs: Any, episode_id: str) -> AliceObservation:
    """Convert the engine's ``Observation`` into the wire model."""
    info = {**obs.info, "episode_id": episode_id}
    return AliceObservation(
        episode_id=episode_id,
        task_id=obs.task_id,
        family=obs.family,
        level=obs.level,
        prompt=obs.prompt,
        turn=obs.turn,
        kind=obs.kind,
        done=obs.done,
        reward=obs.reward,
        reward_components=dict(info.get("reward_components") or {}),
        verdict=_plain(obs.verdict),
        feedback=obs.feedback or "",
        hint=obs.hint,
        messages=list(obs.messages),
        info=info,
    )


def public_task(task: Any, done: bool) -> Optional[dict]:
    """The task as a client may see it: until the episode is over, without its answer, its hint
    (the observation reveals that at the hint turn) and the metadata that names the answer."""
    task = _plain(task)
    if not isinstance(task, dict) or done:
        return task
    return {key: value for key, value in task.items() if key not in ("answer", "metadata", "hint")}


def to_state(state: Mapping[str, Any], episode_id: str) -> AliceState:
    """Convert the engine's state dict into the wire model; extra facts (mode, failure_mode,
    level changes...) pass through as extra fields. The answer stays hidden until the end."""
    known = {"episode_id", "task", "turn", "done", "solved", "rewards", "history"}
    extras = {key: value for key, value in state.items() if key not in known}
    done = bool(state.get("done", False))
    return AliceState(
        **extras,
        episode_id=episode_id,
        step_count=int(state.get("turn", 0)),
        task=public_task(state.get("task"), done),
        turn=int(state.get("turn", 0)),
        done=bool(state.get("done", False)),
        solved=bool(state.get("solved", False)),
        rewards=list(state.get("rewards", [])),
        history=[_plain(turn) for turn in state.get("history", [])],
    )


def _locked_state(slot: EpisodeSlot) -> AliceState:
    with slot.lock:
        return to_state(slot.env.state, slot.episode_id)


class AliceServerEnvironment(Environment[AliceAction, AliceObservation, AliceState]):
    """One OpenEnv session: plays its own ALICE episodes; shares only the database."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, services: Any, episodes: EpisodeRegistry):
        super().__init__()
        self._services = services
        self._episodes = episodes
        self._slot: Optional[EpisodeSlot] = None
        # Set by the guard for HTTP requests (the factory runs in the request's context); a
        # WebSocket session's episodes belong to the session itself.
        self._client = current_client.get()

    def reset(self, seed: Optional[int] = None, episode_id: Optional[str] = None, **options: Any) -> AliceObservation:
        opts = parse_reset_options({"seed": seed, "episode_id": episode_id, **options})
        if opts.episode_id and opts.episode_id in self._episodes:
            raise RequestError(409, f"episode_id {opts.episode_id!r} is already in use; leave episode_id "
                                    "out and the server picks a fresh one")
        env = self._services.new_environment()
        try:
            obs = env.reset(seed=opts.seed, family=opts.family, level=opts.level, mode=opts.mode, wording=opts.wording,
                            turns=opts.turns)
        except ValueError as exc:  # options the engine cannot honour: unknown family, empty bank...
            raise RequestError(422, f"cannot start this episode: {exc}") from None
        slot = EpisodeSlot(opts.episode_id or obs.info["episode_id"], env, owner=self._client)
        self._episodes.add(slot)
        self._slot = slot
        observation = to_observation(obs, slot.episode_id)
        if opts.ignored:
            observation.info["ignored_options"] = opts.ignored
        return observation

    def step(
        self,
        action: AliceAction,
        timeout_s: Optional[float] = None,
        episode_id: Optional[str] = None,
        request_id: Optional[str] = None,
    ) -> AliceObservation:
        slot = self._episodes.get(episode_id, self._client) if episode_id else self._current_slot()
        with slot.lock:
            if slot.env.episode is not None and slot.env.episode.done:
                raise RequestError(409, f"episode {slot.episode_id} is over; call reset to start another")
            try:
                obs = slot.env.step(action.response, samples=action.samples or None)
            except ValueError as exc:  # e.g. an answer over the engine's byte limit
                raise RequestError(422, f"answer refused: {exc}") from None
        return to_observation(obs, slot.episode_id)

    @property
    def state(self) -> AliceState:
        return AliceState() if self._slot is None else _locked_state(self._slot)

    def state_of(self, episode_id: str) -> AliceState:
        """The state of any episode this server holds (the HTTP ``/state?episode_id=`` path)."""
        return _locked_state(self._episodes.get(episode_id, self._client))

    def get_metadata(self) -> EnvironmentMetadata:
        return EnvironmentMetadata(
            name="ALICE",
            description="Five-turn episodes that find, bank and repair reasoning failures "
            "(negation arithmetic and friends), verified by code.",
            version="0.1.0", readme_content=about.readme(), author=about.AUTHOR, documentation_url=about.DOCS_PATH,
        )

    def _current_slot(self) -> EpisodeSlot:
        if self._slot is None:
            raise RequestError(
                409,
                "no episode in progress: call reset first "
                "(over HTTP, pass the episode_id that /reset returned to /step)",
            )
        return self._slot
