"""GRPOTrainer assembly: the model with a LoRA adapter, the engine's reward, and the prompt feed.

The co-evolving feed is a ``datasets.IterableDataset`` over a generator, so TRL pulls each prompt
at the moment it needs it (one generation batch ahead) and every prompt reflects what the
previous groups taught the curriculum. The static feed is a plain ``Dataset`` (the baseline).
"""
from __future__ import annotations

from pathlib import Path
from random import Random
from typing import Any, Callable

from alice_app.training.callbacks import as_trainer_callback
from alice_app.training.config import TrainConfig
from alice_app.training.feed import CoevolvingFeed, static_items
from alice_app.training.prompts import training_messages
from alice_app.training.redraw import OutcomeWatch, redrawing_trainer_class
from alice_app.training.replay import WorkedReplay, chain_observers
from alice_app.training.rewards import make_reward_function
from alice_app.training.shared_prefix import sharing_prefix_trainer_class


def build_grpo_trainer(services: Any, config: TrainConfig, model: Any, tokenizer: Any, families: list[str],
                       output_dir: Path, callbacks: list[Any], on_probe: Callable[[Any], None] = lambda report: None,
                       should_stop: Callable[[], bool] = lambda: False) -> Any:
    """The GRPOTrainer of ``config``; ``callbacks`` run first (the warm start among them), then the co-evolving
    feed's probe (``feed_probe`` tasks a cell), whose report goes to ``on_probe``."""
    from trl import GRPOTrainer

    args = config.to_grpo_config(str(output_dir))
    args.ignore_data_skip = True  # a live feed cannot be replayed; resuming simply draws new prompts
    holder: dict[str, Any] = {}
    dataset, feed = training_dataset(services, config, families, policy=lambda: holder["policy"])
    observer = None if feed is None else feed.observe
    trainer_class = sharing_prefix_trainer_class(GRPOTrainer)  # each group's prompt runs once (generation, loss)
    if config.redraw_uniform:
        watch = OutcomeWatch()
        observer = chain_observers(observer, watch.observe)
        trainer_class = redrawing_trainer_class(trainer_class, row_drawer(dataset, feed, config.seed), watch,
                                                config.redraw_uniform)
    if feed is not None and config.feed_probe:
        from alice_app.training.probe import feed_probe_callback

        callbacks = [*callbacks, feed_probe_callback(feed, tokenizer, services.settings, services.verifier, config,
                                                     on_report=on_probe, should_stop=should_stop)]
    if config.worked_replay:  # first, so its log key is in place when the run recorder reads the line
        replay = as_trainer_callback(WorkedReplay(tokenizer, config.fine_tune_learning_rate,
                                                  unsolved_only=config.worked_replay_unsolved_only))
        observer, callbacks = chain_observers(observer, replay.observe), [replay, *callbacks]
    trainer = trainer_class(
        model=model, reward_funcs=make_reward_function(services.verifier, observer, config.consistency_penalty,
                                                              config.working_bonus, config.echo_penalty),
        args=args,
        train_dataset=dataset, processing_class=tokenizer, peft_config=config.lora_config(), callbacks=callbacks,
    )
    holder["policy"] = _live_policy(trainer.model, tokenizer, config)
    return trainer


def training_dataset(services: Any, config: TrainConfig, families: list[str],
                     policy: Callable[[], Any] | None = None) -> tuple[Any, Any]:
    """(dataset, feed): the feed's ``observe`` receives every judged group (no feed for the static one)."""
    from datasets import Dataset

    messages = training_messages(config.no_format_share, config.rephrase_share, config.wording_share)
    if config.feed == "static":
        rows = [item.to_row() for item in static_items(families, config.static_size, config.seed, messages)]
        return Dataset.from_list(rows), None
    feed = CoevolvingFeed(families, services.curriculum, services.bank, seed=config.seed, build_messages=messages,
                          lookahead=config.feed_lookahead, zone_replay=config.feed_zone_replay)
    if config.mode == "episode":
        from alice_app.training.episodes import EpisodeFeed

        feed = EpisodeFeed(feed, services.verifier, policy, max_tokens=config.max_completion_length)
    return live_dataset(feed), feed


def row_drawer(dataset: Any, feed: Any, seed: int) -> Callable[[], dict[str, Any]]:
    """The next row of the feed (live), or a seeded random row of the static dataset: where a redrawn
    batch's prompts come from."""
    if feed is not None:
        return iter(feed.rows()).__next__
    rng = Random(seed)
    return lambda: dataset[rng.randrange(len(dataset))]


def live_dataset(feed: Any) -> Any:
    """An IterableDataset that asks ``feed.rows()`` for each row when TRL needs it.

    Built on ``ExamplesIterable`` rather than ``from_generator``, which would hash (pickle) the
    generator and with it the feed's database connection.
    """
    from datasets import IterableDataset
    from datasets.iterable_dataset import ExamplesIterable

    return IterableDataset(ExamplesIterable(_numbered_rows, {"feed": feed}))


def _numbered_rows(feed: Any) -> Any:
    for index, row in enumerate(feed.rows()):
        yield index, row


def _live_policy(model: Any, tokenizer: Any, config: TrainConfig) -> Any:
    """The policy being trained, for the episode feed's earlier turns (greedy, current weights)."""
    from alice_app.models.local import LocalPolicy

    return LocalPolicy(model, tokenizer, model_id="training-policy", batch_size=config.num_generations)
