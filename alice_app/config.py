"""Settings: the only place that reads environment variables."""
from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Mapping

EMBEDDED_MODEL = "embedded:SmolLM2-135M-Instruct"

# Seeds below TRAIN_SEED_LIMIT are for hunting and training; evaluation draws only from the
# held-out range, so no trained-on task is ever scored as "held out".
TRAIN_SEED_LIMIT = 1_000_000_000
HELD_OUT_SEED_START = 2_000_000_000
# Tokens per answer when a model is evaluated: room for the engine's longest worked solution of a built-in task
# (more than 48 tokens for the hard counts; tests/tasks/test_solutions.py checks they fit), so a model that works a
# task out the way the warm start teaches is never cut off before its answer line.
EVAL_MAX_TOKENS = 80


def _flag(value: str | None) -> bool:
    return (value or "").strip().lower() in {"1", "true", "yes", "on"}


@dataclass(frozen=True)
class Settings:
    data_dir: Path = field(default=Path("data"), metadata={"help": "runtime files (ALICE_DATA_DIR)"})
    db_path: Path = field(default=Path("data/alice.db"), metadata={"help": "SQLite database (ALICE_DB)"})
    model_name: str = field(
        default=EMBEDDED_MODEL,
        metadata={"help": "policy: the embedded SmolLM2, a HF model id or local path, or the "
                          "remote model name when API_BASE_URL is set (MODEL_NAME)"},
    )
    challenger_model: str | None = field(
        default=None,
        metadata={"help": "the challenger that writes new task wordings, named like MODEL_NAME; unset = the "
                          "policy's model (CHALLENGER_MODEL)"},
    )
    api_base_url: str | None = field(default=None, metadata={"help": "OpenAI-compatible endpoint (API_BASE_URL)"})
    hf_token: str | None = field(default=None, metadata={"help": "bearer token for the endpoint (HF_TOKEN)"})
    oracle: str = field(default="none", metadata={"help": "tier-2 oracle backend: none|api|local (ALICE_ORACLE)"})
    oracle_model: str | None = field(default=None, metadata={"help": "oracle model id (ORACLE_MODEL)"})
    load_4bit: bool = field(default=False, metadata={"help": "load HF models in 4-bit on CUDA (ALICE_LOAD_4BIT)"})
    admin_password: str | None = field(
        default=None, metadata={"help": "required to train or delete data in the UI (ALICE_ADMIN_PASSWORD)"}
    )
    server_name: str = field(default="127.0.0.1", metadata={"help": "GRADIO_SERVER_NAME"})
    server_port: int = field(default=7860, metadata={"help": "GRADIO_SERVER_PORT"})
    max_sessions: int = field(default=64, metadata={"help": "concurrent environment sessions (ALICE_MAX_SESSIONS)"})
    api_token: str | None = field(
        default=None, metadata={"help": "if set, the OpenEnv routes need it as a bearer token (ALICE_API_TOKEN)"}
    )
    session_idle_s: float = field(
        default=300.0, metadata={"help": "seconds before an idle server session is closed (ALICE_SESSION_IDLE_S)"}
    )
    writes_per_minute: int = field(
        default=600, metadata={"help": "resets + steps one client may make per minute; 0 = no limit "
                                       "(ALICE_WRITES_PER_MINUTE)"}
    )
    behind_proxy: bool = field(
        default=False, metadata={"help": "identify clients by the proxy's X-Forwarded-For (ALICE_BEHIND_PROXY)"}
    )

    @property
    def models_dir(self) -> Path:
        return self.data_dir / "models"

    @property
    def runs_dir(self) -> Path:
        return self.data_dir / "runs"

    @property
    def uses_embedded_model(self) -> bool:
        return self.model_name == EMBEDDED_MODEL and not self.api_base_url

    def validate(self) -> "Settings":
        if self.oracle not in {"none", "api", "local"}:
            raise ValueError(f"ALICE_ORACLE must be none, api or local, not {self.oracle!r}")
        if not 0 < self.server_port < 65536:
            raise ValueError(f"GRADIO_SERVER_PORT must be a TCP port, not {self.server_port}")
        if self.max_sessions < 1:
            raise ValueError("ALICE_MAX_SESSIONS must be at least 1")
        if not self.session_idle_s > 0:
            raise ValueError(f"ALICE_SESSION_IDLE_S must be a positive number of seconds, not {self.session_idle_s}")
        if self.writes_per_minute < 0:
            raise ValueError(f"ALICE_WRITES_PER_MINUTE must be 0 (no limit) or more, not {self.writes_per_minute}")
        return self

    def with_overrides(self, **changes) -> "Settings":
        return replace(self, **changes).validate()

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Settings":
        env = os.environ if env is None else env
        data_dir = Path(env.get("ALICE_DATA_DIR", "data"))
        try:
            port = int(env.get("GRADIO_SERVER_PORT", "7860"))
            max_sessions = int(env.get("ALICE_MAX_SESSIONS", "64"))
            writes = int(env.get("ALICE_WRITES_PER_MINUTE", "600"))
            idle = float(env.get("ALICE_SESSION_IDLE_S", "300"))
        except ValueError as exc:
            raise ValueError("GRADIO_SERVER_PORT, ALICE_MAX_SESSIONS and ALICE_WRITES_PER_MINUTE must be "
                             f"integers, ALICE_SESSION_IDLE_S a number ({exc})") from None
        return cls(
            data_dir=data_dir,
            db_path=Path(env.get("ALICE_DB", str(data_dir / "alice.db"))),
            model_name=env.get("MODEL_NAME") or EMBEDDED_MODEL,
            challenger_model=env.get("CHALLENGER_MODEL") or None,
            api_base_url=env.get("API_BASE_URL") or None,
            hf_token=env.get("HF_TOKEN") or None,
            oracle=env.get("ALICE_ORACLE", "none"),
            oracle_model=env.get("ORACLE_MODEL") or None,
            load_4bit=_flag(env.get("ALICE_LOAD_4BIT")),
            admin_password=env.get("ALICE_ADMIN_PASSWORD") or None,
            server_name=env.get("GRADIO_SERVER_NAME", "127.0.0.1"),
            server_port=port,
            max_sessions=max_sessions,
            api_token=env.get("ALICE_API_TOKEN") or None,
            session_idle_s=idle,
            writes_per_minute=writes,
            behind_proxy=_flag(env.get("ALICE_BEHIND_PROXY")),
        ).validate()
