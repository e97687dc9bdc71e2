"""The FastAPI app: OpenEnv's HTTP/WebSocket server for ALICE, with the Gradio app at /web.

``uvicorn alice_app.server:app`` builds it from the environment variables (``Settings.from_env``);
tests and embedders call ``create_app(services)``.
"""
from __future__ import annotations

import functools
from typing import Any, Optional

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse
from fastapi.routing import APIRoute
from openenv.core.env_server.http_server import HTTPEnvServer
from openenv.core.env_server.types import SchemaResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.websockets import WebSocketDisconnect

from alice_app.config import Settings
from alice_app.server.environment import AliceServerEnvironment
from alice_app.server.episodes import EpisodeRegistry, RequestError
from alice_app.server.models import AliceAction, AliceObservation, AliceState

UI_PATH = "/web"
# HTTP episodes outlive their requests; keep a few per session slot before the oldest expires.
HTTP_EPISODES_PER_SESSION = 4
# Validation errors echo the offending input; a 1 MB answer must not come back as 1 MB of error.
MAX_ECHOED_INPUT_CHARS = 200


def create_app(services: Any = None, *, settings: Optional[Settings] = None, mount_ui: bool = True) -> FastAPI:
    """Build the server around ``services`` (built from ``settings`` or the environment if None)."""
    if services is None:
        from alice_app.services import Services

        services = Services.from_settings(settings or Settings.from_env())
    max_sessions = services.settings.max_sessions
    episodes = EpisodeRegistry(capacity=max_sessions * HTTP_EPISODES_PER_SESSION)
    # A partial of the class (not a closure) lets OpenEnv read SUPPORTS_CONCURRENT_SESSIONS
    # without building a throw-away environment.
    factory = functools.partial(AliceServerEnvironment, services, episodes)
    app = FastAPI(title="ALICE OpenEnv server", version="0.1.0", docs_url="/docs")
    app.state.services = services
    app.state.episodes = episodes
    HTTPEnvServer(factory, AliceAction, AliceObservation, max_concurrent_envs=max_sessions).register_routes(app)
    _replace_state_and_schema(app, factory)
    _add_error_handlers(app)
    app.add_middleware(QuietWebSocketClose)
    if mount_ui:
        _mount_gradio(app, services)
    app.add_api_route("/", _redirect_to(UI_PATH + "/" if mount_ui else "/docs"), include_in_schema=False)
    return app


class QuietWebSocketClose:
    """Swallow the disconnect OpenEnv 0.3.0 raises when it closes a socket the client already
    closed (every normal ``EnvClient.close()``), which uvicorn would log as a server error."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        try:
            await self.app(scope, receive, send)
        except WebSocketDisconnect:
            if scope["type"] != "websocket":
                raise


def _redirect_to(target: str):
    async def redirect() -> RedirectResponse:
        return RedirectResponse(target)

    return redirect


def _replace_state_and_schema(app: FastAPI, factory) -> None:
    """OpenEnv's /state cannot name an episode and its /schema shows the base State; ours do."""
    app.router.routes = [
        route for route in app.router.routes
        if not (isinstance(route, APIRoute) and route.path in {"/state", "/schema"})
    ]

    def get_state(episode_id: Optional[str] = None) -> AliceState:
        """The state of the episode ``episode_id`` (an empty state without one)."""
        return factory().state_of(episode_id) if episode_id else AliceState()

    def get_schema() -> SchemaResponse:
        """JSON schemas of the action, observation and state models."""
        return SchemaResponse(
            action=AliceAction.model_json_schema(),
            observation=AliceObservation.model_json_schema(),
            state=AliceState.model_json_schema(),
        )

    app.add_api_route("/state", get_state, methods=["GET"], response_model=AliceState, tags=["State Management"])
    app.add_api_route("/schema", get_schema, methods=["GET"], response_model=SchemaResponse, tags=["Schema"])


def trim_errors(errors: Any) -> Any:
    """Validation errors with any long echoed ``input`` cut short."""
    if not isinstance(errors, list):
        return jsonable_encoder(errors)
    trimmed = []
    for error in errors:
        value = error.get("input") if isinstance(error, dict) else None
        if isinstance(value, (str, dict, list)) and len(str(value)) > MAX_ECHOED_INPUT_CHARS:
            error = {**error, "input": str(value)[:MAX_ECHOED_INPUT_CHARS] + "… (truncated)"}
        trimmed.append(error)
    return jsonable_encoder(trimmed)


def _add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestError)
    async def request_error(_: Request, exc: RequestError) -> JSONResponse:
        return JSONResponse({"detail": exc.message}, status_code=exc.status_code)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": trim_errors(list(exc.errors()))}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse({"detail": trim_errors(exc.detail)}, status_code=exc.status_code, headers=exc.headers)


def _mount_gradio(app: FastAPI, services: Any) -> None:
    """Serve the Gradio workbench at /web from this same process, styled as ``python app.py`` does."""
    import gradio as gr

    from alice_app.ui import build_app
    from alice_app.ui.workbench import CSS

    gr.mount_gradio_app(app, build_app(services), path=UI_PATH, theme=gr.themes.Soft(), css=CSS)


def __getattr__(name: str) -> Any:
    # ``uvicorn alice_app.server:app`` and ``alice_app.server.asgi:app``: built once, on first use.
    if name == "app":
        globals()["app"] = built = create_app()
        return built
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
