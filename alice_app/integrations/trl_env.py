"""ALICE as a TRL ``environment_factory``: ``GRPOTrainer(environment_factory=..., reward_funcs=[...])``.

    from alice_app.integrations.trl_env import make_environment_factory, text_answer_reward, tool_ready
    trainer = GRPOTrainer(model=model, processing_class=tool_ready(tokenizer), args=args,
                          train_dataset=alice_dataset(["plain_arithmetic"], 64),
                          environment_factory=make_environment_factory(services),
                          reward_funcs=[text_answer_reward])

TRL calls ``reset(**row)`` before each rollout (the returned task text is appended to the row's
last user message), exposes every public method but ``reset``/``get_reward`` as a tool (here only
``answer``, documented with ``Args:`` so TRL can build its schema), and adds ``get_reward`` as a
reward source. Two facts about small models shape the rest:

- SmolLM2's chat template cannot render tool calls, and TRL refuses such a template.
  :func:`tool_ready` swaps in TRL's Qwen2.5 ChatML template, which uses the same
  ``<|im_start|>``/``<|im_end|>`` tokens, so the model sees the format it was trained on plus
  a tool block.
- A 135M model rarely emits a well-formed ``<tool_call>``. ``get_reward`` only scores answers
  given through the tool; :func:`text_answer_reward` plays the completion's text as the answer
  when the tool was never called, so an untooled rollout is still judged by the verifier.
  The multi-turn ``rollout_func`` (``alice_app.integrations.rollout``) needs no tool calls at all.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from alice_app.integrations.backends import backend_factory, reset_options

OVER = "The episode is over; no more answers are accepted."


class AliceTRLEnvironment:
    """One rollout's episode. Public methods are what TRL looks for: reset, answer (a tool), get_reward."""

    def __init__(self, backend: Any):
        self._backend = backend
        self._observation: dict[str, Any] | None = None
        self._tool_rewards: list[float] = []
        self._text_played = False

    def reset(self, **row: Any) -> str:
        """Start an episode for a dataset row; returns the task text, which TRL appends to the prompt."""
        self._observation = self._backend.reset(**reset_options(row))
        self._tool_rewards, self._text_played = [], False
        return self._observation["prompt"]

    def answer(self, answer: str) -> str:
        """Submit your answer to the puzzle. A wrong answer gets feedback and another try (5 in all).

        Args:
            answer: your answer only, e.g. "7" or "CAT,DOG".

        Returns:
            Whether it was correct, and if not, the feedback and instructions for the next try.
        """
        observation = self._play(str(answer))
        if observation is None:
            return OVER
        self._tool_rewards.append(float(observation["reward"] or 0.0))
        return _reply(observation)

    def get_reward(self) -> float:
        """The reward of the last answer given through the ``answer`` tool (0.0 when none was)."""
        return self._tool_rewards[-1] if self._tool_rewards else 0.0

    @property
    def observation(self) -> dict[str, Any] | None:
        """The latest observation dict (task_id, prompt, turn, done, reward, verdict, messages, ...)."""
        return self._observation

    def _play(self, text: str) -> dict[str, Any] | None:
        if self._observation is None:
            raise ValueError("reset() must be called before answering")
        if self._observation["done"]:
            return None
        self._observation = self._backend.step(text)
        return self._observation

    def _play_text(self, text: str) -> float | None:
        """Play a completion's text as the answer when no tool call answered; None otherwise."""
        if self._tool_rewards or self._text_played:
            return None
        self._text_played = True
        observation = self._play(text)
        return None if observation is None else float(observation["reward"] or 0.0)


def _reply(observation: dict[str, Any]) -> str:
    verdict = observation.get("verdict") or {}
    if verdict.get("is_correct"):
        return "Correct. The episode is over."
    if observation["done"]:
        return f"Wrong: {observation.get('feedback', '')} {OVER}".strip()
    return observation["messages"][-1]["content"]  # the next turn's user message ("prompt" is the task)


def text_answer_reward(completions: Sequence[Any], environments: Sequence[Any] | None = None,
                       **_: Any) -> list[float | None]:
    """A TRL reward function for rollouts that never called ``answer``: their completion text is
    played as the answer (and banked if wrong) and its reward returned; None (ignored by TRL) for
    rollouts already scored by ``get_reward``."""
    if environments is None:
        raise ValueError("text_answer_reward needs environment_factory=make_environment_factory(...)")
    return [env._play_text(_final_text(c)) for env, c in zip(environments, completions)]


def _final_text(completion: Any) -> str:
    if isinstance(completion, list):  # conversational: the assistant's messages, tool turns included
        texts = [m.get("content") or "" for m in completion if m.get("role") == "assistant"]
        return texts[-1] if texts else ""
    from alice_app.training.rewards import completion_text

    return completion_text(completion)


def make_environment_factory(services: Any = None, *, base_url: str | None = None,
                             seed: int | None = None, **client_kwargs: Any) -> Callable[[], AliceTRLEnvironment]:
    """A zero-argument factory for ``environment_factory``: episodes in this process on ``services``
    (its database takes the bank and curriculum updates), or on the server at ``base_url``."""
    make = backend_factory(services, base_url=base_url, seed=seed, **client_kwargs)
    return lambda: AliceTRLEnvironment(make())


def tool_ready(tokenizer: Any) -> Any:
    """Give a ChatML tokenizer without tool support (SmolLM2) TRL's Qwen2.5 tool-calling template.

    Same special tokens, same layout for plain turns, plus the ``<tools>``/``<tool_call>`` blocks
    TRL renders and parses. Any other template that already supports tools is left as it is."""
    from trl.chat_template_utils import qwen2_5_chat_template, supports_tool_calling

    if supports_tool_calling(tokenizer):
        return tokenizer
    if "<|im_start|>" not in (tokenizer.chat_template or ""):
        raise ValueError("this tokenizer's chat template supports no tool calls and is not ChatML; "
                         "use the rollout_func path (alice_app.integrations.rollout), which needs none")
    tokenizer.chat_template = qwen2_5_chat_template
    return tokenizer
