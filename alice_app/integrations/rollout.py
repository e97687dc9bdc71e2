"""ALICE's 5-turn episode as a TRL ``rollout_func``: no tool calls needed.

    rollout = make_rollout_func(services)            # or make_rollout_func(base_url="http://...")
    trainer = GRPOTrainer(model=model, processing_class=tokenizer, args=args,
                          train_dataset=alice_dataset(["plain_arithmetic"], 64),
                          rollout_func=rollout, reward_funcs=[episode_reward])

For each prompt TRL hands over, the rollout plays the row's task on a fresh episode: the policy
answers, the environment judges and writes the next user turn (feedback, reflection, hint, last
call), until it is solved or five turns are played. The completion TRL trains on is the whole
exchange; ``env_mask`` is 1 on the policy's tokens and 0 on the environment's, so the loss
touches only what the model wrote. The episode's return (sum of its turn rewards) comes back as
the ``episode_reward`` column for the :func:`episode_reward` reward function. Works with any
prefix-preserving chat template (SmolLM2's ChatML is one); the answer is plain text.
"""
from __future__ import annotations

import json
from typing import Any, Sequence

from alice_app.integrations.backends import backend_factory

MAX_TURNS = 5


def alice_dataset(families: Sequence[str], size: int, seed: int = 0, *, for_environment: bool = False) -> Any:
    """A ``datasets.Dataset`` of ALICE tasks: ``prompt`` (system + task, as an episode asks it) and
    ``task`` (its JSON). ``for_environment``: the user turn is left empty, because with
    ``environment_factory`` TRL appends the text ``reset`` returns to it."""
    from datasets import Dataset

    from alice_app.training.feed import static_items

    rows = []
    for item in static_items(list(families), size, seed):
        prompt = [dict(m) for m in item.messages]
        if for_environment:
            prompt[-1]["content"] = ""
        rows.append({"prompt": prompt, "task": json.dumps(item.task.to_dict())})
    return Dataset.from_list(rows)


def episode_reward(completions: Sequence[Any], episode_reward: Sequence[float], **_: Any) -> list[float]:
    """The reward function for the rollout path: the return of each played episode."""
    return [float(value) for value in episode_reward]


class EpisodeRollout:
    """The ``rollout_func(prompts, trainer) -> dict``; keeps one backend per concurrent rollout."""

    def __init__(self, make_backend: Any, *, max_turns: int = MAX_TURNS, max_new_tokens: int | None = None):
        if not 1 <= max_turns <= MAX_TURNS:
            raise ValueError(f"max_turns must be between 1 and {MAX_TURNS}, not {max_turns}")
        self.make_backend, self.max_turns, self.max_new_tokens = make_backend, max_turns, max_new_tokens
        self.backends: list[Any] = []
        self._tasks: dict[str, dict] | None = None

    def __call__(self, prompts: list, trainer: Any) -> dict[str, list]:
        tasks = [self.task_for(prompt, trainer) for prompt in prompts]
        while len(self.backends) < len(prompts):
            self.backends.append(self.make_backend())
        games = [_Game(backend, trainer.processing_class, backend.reset(task=task))
                 for backend, task in zip(self.backends, tasks)]
        for turn in range(1, self.max_turns + 1):
            active = [game for game in games if not game.done]
            if not active:
                break
            for game, (ids, logprobs) in zip(active, self._generate(trainer, [g.context for g in active])):
                game.play(ids, logprobs, last=turn == self.max_turns)
        return {
            "prompt_ids": [g.prompt_ids for g in games], "completion_ids": [g.completion_ids for g in games],
            "logprobs": [g.logprobs for g in games], "env_mask": [g.env_mask for g in games],
            "episode_reward": [g.total_reward for g in games], "solved": [g.solved for g in games],
            "turns": [g.turns for g in games],
        }

    def close(self) -> None:
        """Close the backends (the OpenEnv sessions of a remote rollout)."""
        for backend in self.backends:
            backend.close()
        self.backends = []

    def task_for(self, prompt: Any, trainer: Any) -> dict:
        """The task of a prompt, found by its text in the trainer's dataset (its ``task`` column)."""
        if self._tasks is None:
            dataset = trainer.train_dataset
            if dataset is None or not hasattr(dataset, "column_names") or "task" not in (dataset.column_names or []):
                raise ValueError("the rollout needs a train_dataset with a 'task' column (see alice_dataset)")
            self._tasks = {_user_text(p): json.loads(t) for p, t in zip(dataset["prompt"], dataset["task"])}
        key = _user_text(prompt)
        if key not in self._tasks:
            raise ValueError(f"no task in the train_dataset has this prompt: {key[:80]!r}")
        return self._tasks[key]

    def _generate(self, trainer: Any, contexts: list[list[int]]) -> list[tuple[list[int], list[float]]]:
        import torch

        tokenizer = trainer.processing_class
        model = trainer.accelerator.unwrap_model(trainer.model)
        width = max(map(len, contexts))
        pad = tokenizer.pad_token_id
        input_ids = torch.tensor([[pad] * (width - len(c)) + c for c in contexts], device=model.device)
        mask = torch.tensor([[0] * (width - len(c)) + [1] * len(c) for c in contexts], device=model.device)
        with torch.no_grad():
            out = model.generate(
                input_ids=input_ids, attention_mask=mask, do_sample=True, temperature=trainer.temperature,
                max_new_tokens=self.max_new_tokens or trainer.max_completion_length, pad_token_id=pad,
                output_scores=True, return_dict_in_generate=True,
            )
            scores = model.compute_transition_scores(out.sequences, out.scores, normalize_logits=True)
        results = []
        for row, logps in zip(out.sequences[:, width:].tolist(), scores.tolist()):
            length = _generated_length(row, tokenizer.eos_token_id, pad)
            results.append((row[:length], logps[:length]))
        return results


def _generated_length(row: list[int], eos: int, pad: int) -> int:
    """Tokens the model wrote: up to and including its first EOS, or until the padding starts."""
    if eos in row:
        return row.index(eos) + 1
    length = len(row)
    while length and row[length - 1] == pad:
        length -= 1
    return length


class _Game:
    """One rollout: the token record of an episode as it is played."""

    def __init__(self, backend: Any, tokenizer: Any, observation: dict[str, Any]):
        self.backend, self.tokenizer, self.observation = backend, tokenizer, observation
        self.prompt_ids = self._render_ids(observation["messages"])
        self.completion_ids: list[int] = []
        self.logprobs: list[float] = []
        self.env_mask: list[int] = []
        self.rewards: list[float] = []

    @property
    def done(self) -> bool:
        return bool(self.observation["done"])

    @property
    def context(self) -> list[int]:
        return self.prompt_ids + self.completion_ids

    @property
    def total_reward(self) -> float:
        return round(sum(self.rewards), 6)

    @property
    def solved(self) -> bool:
        return bool((self.observation.get("verdict") or {}).get("is_correct"))

    @property
    def turns(self) -> int:
        return len(self.rewards)

    def play(self, ids: list[int], logprobs: list[float], *, last: bool = False) -> None:
        """The model's answer ``ids``; then, unless the episode or the rollout ends, the environment's turn."""
        text = self.tokenizer.decode(ids, skip_special_tokens=True)
        self.observation = self.backend.step(text)
        self.rewards.append(float(self.observation["reward"] or 0.0))
        self._append(ids, logprobs, model=True)
        if not self.done and not last:
            self._append(self._environment_ids(ids), None, model=False)

    def _environment_ids(self, ids: list[int]) -> list[int]:
        """The tokens between the model's answer and its next turn: the end of its message (if it
        did not write one), the environment's user message and the assistant header."""
        messages = self.observation["messages"]
        answered = self._render(messages[:-1], generation_prompt=False)
        following = self._render(messages, generation_prompt=True)
        if not following.startswith(answered):
            raise ValueError("the chat template is not prefix-preserving; the rollout cannot splice turns")
        end = self.tokenizer.eos_token or ""
        tail = answered[answered.rindex(end):] if end and end in answered else ""
        closing = tail[len(end):] if ids and ids[-1] == self.tokenizer.eos_token_id else tail
        return self.tokenizer.encode(closing + following[len(answered):], add_special_tokens=False)

    def _append(self, ids: list[int], logprobs: list[float] | None, *, model: bool) -> None:
        self.completion_ids += ids
        self.logprobs += logprobs if logprobs is not None else [0.0] * len(ids)
        self.env_mask += [1 if model else 0] * len(ids)

    def _render(self, messages: list[dict], *, generation_prompt: bool) -> str:
        return self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=generation_prompt)

    def _render_ids(self, messages: list[dict]) -> list[int]:
        return self.tokenizer.encode(self._render(messages, generation_prompt=True), add_special_tokens=False)


def make_rollout_func(services: Any = None, *, base_url: str | None = None, seed: int | None = None,
                      max_turns: int = MAX_TURNS, max_new_tokens: int | None = None,
                      **client_kwargs: Any) -> EpisodeRollout:
    """The rollout over episodes in this process (``services``) or on an ALICE server (``base_url``).
    ``max_new_tokens`` per turn defaults to the trainer's ``max_completion_length``."""
    make = backend_factory(services, base_url=base_url, seed=seed, **client_kwargs)
    return EpisodeRollout(make, max_turns=max_turns, max_new_tokens=max_new_tokens)


def _user_text(prompt: Any) -> str:
    if isinstance(prompt, str):
        return prompt
    users = [m.get("content", "") for m in prompt if m.get("role") == "user"]
    return str(users[-1]) if users else ""
