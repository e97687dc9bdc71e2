"""Typed wire models of the ALICE OpenEnv server: what a client sends and receives.

They extend OpenEnv's pydantic base models, so OpenEnv validates every request against them
(a missing field or a wrong type is a 422 before the environment sees it) and ``/schema``
publishes them. No engine import here: a remote client needs only these and ``client.py``.
"""
from __future__ import annotations

from typing import Annotated, Any, Literal, Optional

from openenv.core.env_server.types import Action, Observation, State
from pydantic import BaseModel, ConfigDict, Field, field_validator

from alice_app.types import MAX_SAMPLES, TURN_KINDS, check_seed

# A policy answer is a few hundred characters; anything near this is a runaway generation or
# abuse, and must not reach the verifier or the failure bank. 16,000 characters stay under the
# engine's 64 KB limit even at 4 UTF-8 bytes each, so the two limits never disagree.
MAX_RESPONSE_CHARS = 16_000

Level = Literal["easy", "medium", "hard"]


def unicode_text(value: Any) -> Any:
    """``value`` unchanged if it is text UTF-8 can carry; a lone surrogate ("\\ud800") is refused."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValueError(f"text must be valid Unicode: a lone surrogate at position {exc.start}") from None
    return value
Mode = Literal["auto", "hunt", "repair"]
Wording = Literal["template", "free"]  # alice_app.tasks.wordings.WORDINGS


class AliceAction(Action):
    """One answer of the policy to the current turn's prompt."""

    response: str = Field(
        ...,
        max_length=MAX_RESPONSE_CHARS,
        description=f"the policy's answer text (at most {MAX_RESPONSE_CHARS} characters)",
    )

    samples: list[Annotated[str, Field(max_length=MAX_RESPONSE_CHARS)]] = Field(
        default_factory=list,
        max_length=MAX_SAMPLES,
        description=f"optional tier 3: 2 to {MAX_SAMPLES} more answers sampled for the same prompt; their "
                    "agreement is the verdict's confidence, and a right but unstable first answer is banked "
                    "as 'unstable'",
    )

    _unicode = field_validator("response")(unicode_text)

    @field_validator("samples")
    @classmethod
    def _samples_are_unicode(cls, value: list[str]) -> list[str]:
        return [unicode_text(v) for v in value]  # the count (2..16 or none) is the environment's check


class AliceObservation(Observation):
    """What the policy sees after reset or a step. ``done`` and ``reward`` come from OpenEnv."""

    episode_id: str = Field(default="", description="id of this episode (pass it to HTTP /step)")
    task_id: str = Field(default="", description="family/level/seed of the task")
    family: str = Field(default="", description="task family")
    level: str = Field(default="", description="easy, medium or hard")
    prompt: str = Field(default="", description="the user message the policy must answer next")
    turn: int = Field(default=0, ge=0, description="turns played so far (0 right after reset)")
    kind: Optional[str] = Field(default=None, description="kind of the next turn; None when done")
    verdict: Optional[dict[str, Any]] = Field(default=None, description="verdict of the last answer")
    feedback: str = Field(default="", description="verifier feedback on the last answer")
    hint: Optional[str] = Field(default=None, description="structural hint, shown at the hint turn")
    messages: list[dict[str, Any]] = Field(default_factory=list, description="chat history for the policy")
    reward_components: dict[str, float] = Field(default_factory=dict, description="parts of the reward")
    info: dict[str, Any] = Field(default_factory=dict, description="extra episode facts")


class AliceState(State):
    """The episode as the server holds it (``episode_id`` and ``step_count`` from OpenEnv)."""

    task: Optional[dict[str, Any]] = Field(default=None, description="the task of this episode")
    turn: int = Field(default=0, ge=0, description="turns played")
    done: bool = Field(default=False, description="episode over")
    solved: bool = Field(default=False, description="solved at some turn")
    rewards: list[float] = Field(default_factory=list, description="reward of each turn")
    history: list[dict[str, Any]] = Field(default_factory=list, description="the turns played")


class ResetOptions(BaseModel):
    """The options ``reset`` understands. Others (TRL passes a dataset row: ``prompt=...``) are
    accepted and ignored; the observation's ``info["ignored_options"]`` names them."""

    model_config = ConfigDict(extra="allow")

    seed: Optional[int] = Field(default=None, ge=0, description="task seed (random when omitted)")
    episode_id: Optional[str] = Field(default=None, max_length=255, description="your own episode id")
    family: Optional[str] = Field(default=None, max_length=100, description="task family (see `families`)")
    level: Optional[Level] = Field(default=None, description="task level")
    mode: Mode = Field(default="auto", description="hunt new failures, repair banked ones, or auto")
    wording: Wording = Field(default="template", description="free: a hunt task in a composed wording, "
                             "where its family offers one (`families` lists them)")
    turns: int = Field(default=len(TURN_KINDS), ge=1, le=len(TURN_KINDS), strict=True,
                       description="the episode ends after this many turns, or when solved (1: the unaided "
                       "first attempt only, a single-turn environment)")

    _unicode = field_validator("episode_id", "family")(unicode_text)

    @field_validator("seed")
    @classmethod
    def _seed_in_range(cls, seed: Optional[int]) -> Optional[int]:
        return None if seed is None else check_seed(seed)

    @property
    def ignored(self) -> list[str]:
        return sorted(self.model_extra or {})
