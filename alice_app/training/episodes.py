"""Episode mode: train the final attempt of the 5-turn episode (self-correction).

Each prompt is a real episode played by the policy being trained: turns 1–4 are its own greedy
answers (so the history holds its own wrong attempt, the verifier's feedback, the reflection
prompt and the structural hint), and GRPO samples and rewards turn 5. Tasks the policy solves
before turn 5 need no correcting and are replaced by the next draw.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Iterator

from alice_app.episode import Episode, advance, new_episode
from alice_app.training.feed import CoevolvingFeed, FeedItem
from alice_app.training.rewards import GroupResult
from alice_app.types import TURN_KINDS, Task

FINAL_TURN = len(TURN_KINDS)


class EpisodeFeed:
    """Wraps a ``CoevolvingFeed``: same task choice and feedback loop, episode-shaped prompts."""

    def __init__(self, base: CoevolvingFeed, verifier: Any, policy: Callable[[], Any], *,
                 max_tokens: int = 48, max_tries: int = 4):
        self.base, self.verifier, self.policy = base, verifier, policy
        self.max_tokens, self.max_tries = max_tokens, max_tries
        self.solved_early = 0

    def rows(self) -> Iterator[dict[str, Any]]:
        while True:
            yield self.draw().to_row()

    def draw(self) -> FeedItem:
        item = self.base.draw()
        for _ in range(self.max_tries):
            episode = self.play_until_final(item.task)
            if episode is not None:
                return episode_item(item, episode)
            self.solved_early += 1
            item = self.base.draw()
        return item  # the policy solves everything early: train first attempts instead

    def play_until_final(self, task: Task) -> Episode | None:
        """Play turns 1–4 with the current policy; None when it solves the task before turn 5."""
        episode = new_episode(task)
        while len(episode.turns) < FINAL_TURN - 1:
            response = self.policy().generate([episode.messages()], n=1, temperature=0.0,
                                              max_tokens=self.max_tokens)[0][0]
            episode = advance(episode, response, self.verifier.verify(task, response))
            if episode.done:
                return None
        return episode

    def observe(self, results: list[GroupResult]) -> None:
        self.base.observe(results)

    def probe_items(self, per_cell: int) -> list[FeedItem]:
        """The base feed's probe: first attempts, since the cells' estimates are the base feed's."""
        return self.base.probe_items(per_cell)


def episode_item(item: FeedItem, episode: Episode) -> FeedItem:
    """The feed item for turn 5 of ``episode``: its whole history is the prompt."""
    # failure_id is dropped: solving after feedback and a hint does not repair a first-attempt failure
    return replace(item, source="episode", messages=tuple(episode.messages()), turn_index=FINAL_TURN, failure_id=None,
                   previous_answers=tuple(turn.verdict.extracted for turn in episode.turns))
