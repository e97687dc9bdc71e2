"""The feed probe: before the first GRPO step, the policy answers a few tasks of every cell the feed may draw.

The co-evolving feed weights a cell (family × level) by its measured share of mixed groups (some
completions right, some wrong), and a cell nobody has measured yet by its prior alone. With seven families
and three levels that is 21 cells, so a short run spent its first ~20 steps probing cells one group at a time,
most of them groups with one outcome (nothing to learn from), and only then trained where the gradient is.
The probe measures those cells up front (after the warm start, which changes what the policy solves): each
frontier cell's ``per_cell`` tasks are answered ``k`` times at the training temperature, judged by the verifier
and handed to ``feed.observe`` as groups of source "probe", exactly as a training step's groups would be
(cell estimates, pass rates for zone replay, the curriculum window, failures banked). Generation only, no
backward pass, batched: cheaper than the steps it replaces. Its time counts as training time.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Callable, Sequence

from alice_app.training.rewards import GroupResult
from alice_app.training.stopwatch import Stopwatch

PROMPTS_PER_BATCH = 2  # prompts generated together (× k completions each)


@dataclass(frozen=True)
class ProbeReport:
    groups: int
    mixed: int  # groups with both right and wrong completions
    completions: int
    seconds: float
    cpu_seconds: float

    def as_metrics(self) -> dict[str, float]:
        """The report under ``feed_probe_*`` names, for the run's metrics (recorded at step 0)."""
        return {f"feed_probe_{key}": float(value) for key, value in asdict(self).items()}


def probe_feed(feed: Any, policy: Any, verifier: Any, *, per_cell: int, k: int, temperature: float,
               max_tokens: int, should_stop: Callable[[], bool] = lambda: False) -> ProbeReport:
    """Answer ``per_cell`` tasks of each of ``feed``'s frontier cells ``k`` times and let the feed observe them."""
    clock = Stopwatch()
    items = feed.probe_items(per_cell)
    results: list[GroupResult] = []
    for start in range(0, len(items), PROMPTS_PER_BATCH):
        if should_stop():
            break
        batch = items[start:start + PROMPTS_PER_BATCH]
        answers = policy.generate([list(item.messages) for item in batch], n=k, temperature=temperature,
                                  max_tokens=max_tokens)
        results.extend(judged_group(item, texts, verifier) for item, texts in zip(batch, answers))
    feed.observe(results)
    return ProbeReport(groups=len(results), mixed=sum(0 < r.passes < len(r.verdicts) for r in results),
                       completions=sum(len(r.verdicts) for r in results), seconds=clock.seconds(),
                       cpu_seconds=clock.cpu_seconds())


def judged_group(item: Any, texts: Sequence[str], verifier: Any) -> GroupResult:
    """The group of ``item``'s answers ``texts`` as the reward function would hand it to the feed."""
    return GroupResult(task=item.task, source=item.source, failure_id=item.failure_id, responses=tuple(texts),
                       verdicts=tuple(verifier.verify(item.task, text) for text in texts))


def feed_probe_callback(feed: Any, tokenizer: Any, settings: Any, verifier: Any, config: Any,
                        on_report: Callable[[ProbeReport], None],
                        should_stop: Callable[[], bool] = lambda: False) -> Any:
    """The trainer callback of ``config``'s probe (``config.feed_probe`` tasks a cell) of ``feed``."""
    from alice_app.training.callbacks import at_fresh_start

    def probe(model: Any) -> ProbeReport:
        from alice_app.training.evaluate import eval_policy

        with eval_policy(model, tokenizer, settings, batch_size=PROMPTS_PER_BATCH * config.num_generations) as policy:
            return probe_feed(feed, policy, verifier, per_cell=config.feed_probe, k=config.num_generations,
                              temperature=config.temperature, max_tokens=config.max_completion_length,
                              should_stop=should_stop)

    return at_fresh_start(probe, on_report)
