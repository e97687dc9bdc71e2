"""``AliceEnv``: OpenEnv's WebSocket ``EnvClient`` for an ALICE server.

    async with AliceEnv(base_url="http://127.0.0.1:7860") as env:
        result = await env.reset(family="negation_arithmetic", level="easy", seed=7)
        while not result.done:
            result = await env.step(AliceAction(response="Answer: 7"))

or synchronously: ``with AliceEnv(base_url=...).sync() as env: env.reset(); env.step("7")``.
Each client is its own session on the server, with its own episode. A server started with
``ALICE_API_TOKEN`` needs ``AliceEnv(base_url=..., api_token=...)``.
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Union
from urllib.parse import quote

from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient

from alice_app.server.models import AliceAction, AliceObservation, AliceState


class AliceEnv(EnvClient[AliceAction, AliceObservation, AliceState]):
    """Plays ALICE episodes on a server; ``step`` takes an ``AliceAction`` or the answer text."""

    def __init__(self, base_url: str, *args: Any, api_token: Optional[str] = None, **kwargs: Any):
        super().__init__(base_url, *args, **kwargs)
        if api_token:  # OpenEnv's client sends no headers; the server also reads ?token=
            self._ws_url += f"?token={quote(api_token, safe='')}"

    def _step_payload(self, action: Union[AliceAction, str]) -> Dict[str, Any]:
        if isinstance(action, str):
            action = AliceAction(response=action)
        return action.model_dump(exclude_defaults=True) | {"response": action.response}

    def _parse_result(self, payload: Dict[str, Any]) -> StepResult[AliceObservation]:
        observation = AliceObservation.model_validate(
            {**payload.get("observation", {}), "done": payload.get("done", False), "reward": payload.get("reward")}
        )
        return StepResult(observation=observation, reward=observation.reward, done=observation.done)

    def _parse_state(self, payload: Dict[str, Any]) -> AliceState:
        return AliceState.model_validate(payload)
