"""The FastAPI app: OpenEnv's HTTP/WebSocket server for ALICE, with the Gradio app at /web.

``uvicorn alice_app.server:app`` builds it from the environment variables (``Settings.from_env``);
tests and embedders call ``create_app(services)``.
"""
from __future__ import annotations

import functools
import json
import logging
import sqlite3
import threading
from typing import Any, Optional

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse
from fastapi.routing import APIRoute
from openenv.core.env_server.http_server import HTTPEnvServer
from openenv.core.env_server.types import ConcurrencyConfig, SchemaResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.websockets import WebSocketDisconnect

from alice_app.config import Settings
from alice_app.server.environment import AliceServerEnvironment
from alice_app.server.episodes import EpisodeRegistry, RequestError
from alice_app.server.guard import MAX_UPLOAD_BYTES, ClientGuard, WriteBudget
from alice_app.server.models import AliceAction, AliceObservation, AliceState
from alice_app.store.db import StoreError, storage_problem
from alice_app.verify import latex

log = logging.getLogger("alice_app.server")

UI_PATH = "/web"
# HTTP episodes outlive their requests; keep a few per session slot before the oldest expires.
HTTP_EPISODES_PER_SESSION = 4
# Validation errors echo the offending input; a 1 MB answer must not come back as 1 MB of error.
MAX_ECHOED_INPUT_CHARS = 200
HTTP_MCP_REFUSED = {"openenv/session/create"}


def create_app(services: Any = None, *, settings: Optional[Settings] = None, mount_ui: bool = True) -> FastAPI:
    """Build the server around ``services`` (built from ``settings`` or the environment if None)."""
    if services is None:
        from alice_app.services import Services

        services = Services.from_settings(settings or Settings.from_env())
    settings = services.settings
    max_sessions = settings.max_sessions
    episodes = EpisodeRegistry(capacity=max_sessions * HTTP_EPISODES_PER_SESSION, per_client=HTTP_EPISODES_PER_SESSION)
    # A partial of the class (not a closure) lets OpenEnv read SUPPORTS_CONCURRENT_SESSIONS
    # without building a throw-away environment.
    factory = functools.partial(AliceServerEnvironment, services, episodes)
    app = FastAPI(title="ALICE OpenEnv server", version="0.1.0", docs_url="/docs")
    app.state.services = services
    app.state.episodes = episodes
    sessions = ConcurrencyConfig(max_concurrent_envs=max_sessions, session_timeout=settings.session_idle_s)
    env_server = HTTPEnvServer(factory, AliceAction, AliceObservation, concurrency_config=sessions)
    env_server.register_routes(app)
    app.state.env_server = env_server
    _replace_state_and_schema(app, factory)
    _replace_health(app, services)
    _add_error_handlers(app)
    app.add_middleware(QuietWebSocketClose)
    budget = WriteBudget(settings.writes_per_minute)  # one per client for the API and the workbench together
    app.add_middleware(ClientGuard, api_token=settings.api_token, behind_proxy=settings.behind_proxy, budget=budget)
    if mount_ui:
        _mount_gradio(app, services, budget)
        if (settings.api_token or settings.behind_proxy) and not settings.admin_password:
            log.warning("the workbench at %s is public (ALICE_API_TOKEN or ALICE_BEHIND_PROXY is set) but "
                        "ALICE_ADMIN_PASSWORD is not: every visitor may tag and delete failures, change the "
                        "curriculum and start training", UI_PATH)
    app.add_api_route("/", _redirect_to(UI_PATH + "/" if mount_ui else "/docs"), include_in_schema=False)
    threading.Thread(target=_warm_up, name="alice-warm-up", daemon=True).start()
    return app


def _warm_up() -> None:
    """Pay the one-off costs (sympy in the LaTeX worker, reasoning-gym's seconds-long import)
    at start-up, in the background, rather than inside some client's first request."""
    from alice_app.tasks.registry import family_names, generate_task

    latex.warm_up()
    for family in family_names():
        try:
            generate_task(family, "easy", 0)
        except Exception:  # a broken family shows up in its own requests, with its own message
            log.warning("warm-up: family %s could not generate a task", family)


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


def _drop_routes(app: FastAPI, paths: set[str]) -> None:
    app.router.routes = [route for route in app.router.routes if getattr(route, "path", None) not in paths]


def _bound_http_mcp(app: FastAPI) -> None:
    """OpenEnv's HTTP /mcp, minus ``openenv/session/create``: each such POST would hold a session
    slot that no client ever closes (8 of them locked every /ws client out). The /mcp WebSocket,
    whose session ends with its connection, is kept."""
    original = next(route.endpoint for route in app.router.routes
                    if isinstance(route, APIRoute) and route.path == "/mcp" and "POST" in route.methods)
    app.router.routes = [route for route in app.router.routes
                         if not (isinstance(route, APIRoute) and route.path == "/mcp")]

    async def mcp(request: Request) -> Any:
        """MCP JSON-RPC (tools/list, tools/call); sessions only over the WebSockets."""
        try:
            message = json.loads(await request.body())
        except ValueError:
            message = None
        if isinstance(message, dict) and message.get("method") in HTTP_MCP_REFUSED:
            return {"jsonrpc": "2.0", "id": message.get("id"), "error": {
                "code": -32601, "message": "sessions over HTTP /mcp are not offered here: open the /ws "
                                           "(or /mcp) WebSocket, whose session ends when it closes"}}
        return await original(request)

    app.add_api_route("/mcp", mcp, methods=["POST"], tags=["MCP"])


def _replace_state_and_schema(app: FastAPI, factory) -> None:
    """OpenEnv's /state cannot name an episode and its /schema shows the base State; ours do."""
    _drop_routes(app, {"/state", "/schema"})
    _bound_http_mcp(app)

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


def _replace_health(app: FastAPI, services: Any) -> None:
    _drop_routes(app, {"/health"})

    def health() -> JSONResponse:
        """healthy, or 503 unhealthy with the reason (database unwritable, disk full...)."""
        problem = storage_problem(services.db)
        if problem:
            return JSONResponse({"status": "unhealthy", "detail": problem}, status_code=503)
        return JSONResponse({"status": "healthy"})

    app.add_api_route("/health", health, methods=["GET"], tags=["Health"])


def safe_text(value: Any) -> Any:
    """Strings with any lone surrogate escaped, so an echoed input can always be sent as JSON."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {safe_text(k): safe_text(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [safe_text(v) for v in value]
    return value


def trim_errors(errors: Any) -> Any:
    """Validation errors with any long echoed ``input`` cut short."""
    if not isinstance(errors, list):
        return safe_text(jsonable_encoder(errors))
    trimmed = []
    for error in errors:
        value = error.get("input") if isinstance(error, dict) else None
        if isinstance(value, (str, dict, list)) and len(str(value)) > MAX_ECHOED_INPUT_CHARS:
            error = {**error, "input": str(value)[:MAX_ECHOED_INPUT_CHARS] + "… (truncated)"}
        trimmed.append(error)
    return safe_text(jsonable_encoder(trimmed))


def _add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestError)
    async def request_error(_: Request, exc: RequestError) -> JSONResponse:
        return JSONResponse({"detail": exc.message}, status_code=exc.status_code)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": trim_errors(list(exc.errors()))}, status_code=422)

    @app.exception_handler(sqlite3.Error)
    @app.exception_handler(StoreError)
    async def storage_error(request: Request, exc: Exception) -> JSONResponse:
        # One line in the log, a clear 503 for the client: not a 41-line traceback and a bare 500.
        log.error("storage error on %s %s: %s: %s", request.method, request.url.path, type(exc).__name__, exc)
        return JSONResponse({"detail": f"storage unavailable ({type(exc).__name__}: {exc}); nothing was "
                                       "recorded for this request, try again later"}, status_code=503)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse({"detail": trim_errors(exc.detail)}, status_code=exc.status_code, headers=exc.headers)


def _mount_gradio(app: FastAPI, services: Any, budget: WriteBudget) -> None:
    """Serve the Gradio workbench at /web from this same process, styled as ``python app.py`` does,
    behind the queue limits of ``workbench_guard`` and with no uploads (it has no upload box)."""
    import gradio as gr

    from alice_app.server.workbench_guard import guarded_workbench
    from alice_app.ui.workbench import CSS

    demo = guarded_workbench(services, budget)
    gr.mount_gradio_app(app, demo, path=UI_PATH, theme=gr.themes.Soft(), css=CSS, max_file_size=MAX_UPLOAD_BYTES)


def __getattr__(name: str) -> Any:
    # ``uvicorn alice_app.server:app`` and ``alice_app.server.asgi:app``: built once, on first use.
    if name == "app":
        globals()["app"] = built = create_app()
        return built
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
