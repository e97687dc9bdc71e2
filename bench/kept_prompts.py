"""Seconds of the held-out report and of a hunt's 5-turn episodes with every prompt prefilled whole (left-padded
batches) vs the prompts kept (``LocalPolicy.keeping_prompts``: each prompt prefilled from where it parts from one
asked before), in one run.

    python bench/kept_prompts.py [--eval-n-per-cell 2] [--episodes 32] [--slots 32] [--repeats 1] [--threads 1]

The held-out report is ``evaluation.evaluate_report`` on the default families (every level, control twins too):
turn-1 chats, which share only the system prompt. The hunt is the learning bench's
(``bench.experiment.hunt_starts``: the default families, uniform over levels, training seeds, seed 0), greedy,
``--slots`` episodes side by side as the bench plays them (each on a fresh database): turn k+1 begins with turn k's
prompt. Both go through a LoRA adapter whose B matrices are drawn small and non-zero (the learning bench's model is an
adapted one). Whole and kept take turns (whole first, the order swapped each repeat) so a change in the machine's
load hits both alike. Prints, for each, the seconds and their ratio, the prompt tokens the kept prompts served, and
how many replies came back the same (a reply to the same chat in both); for the hunt also whether the episodes'
outcomes (turn-1 right, solved, turns) are the same.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, no install

from bench.experiment import experiment_services, hunt_starts  # noqa: E402
from bench.fine_tuning import fresh_lora_model  # noqa: E402


class Player:
    """Stands for ``policy``, recording each chat's reply; it offers ``keeping_prompts`` only when ``keep`` (the
    hunt and the report open it then, else they ask every prompt whole), and keeps that cache's counters."""

    def __init__(self, policy, keep: bool):
        self.policy, self.model_id, self.replies, self.caches = policy, policy.model_id, {}, []
        if keep:
            self.keeping_prompts = self._keeping_prompts

    def generate(self, chats, **kwargs):
        answers = self.policy.generate(chats, **kwargs)
        self.replies.update({tuple(m["content"] for m in chat): answer[0] for chat, answer in zip(chats, answers)})
        return answers

    @contextmanager
    def _keeping_prompts(self):
        with self.policy.keeping_prompts() as cache:
            self.caches.append(cache)
            yield cache

    def counters(self) -> dict:
        return {"reused": sum(c.reused_tokens for c in self.caches), "prefilled": sum(c.prefilled_tokens for c in self.caches)}


def report(player: Player, families: list[str], n_per_cell: int, max_tokens: int) -> list:
    """The held-out report's accuracy table (what must not change)."""
    from alice_app.evaluation import evaluate_report

    return evaluate_report(player, families, n_per_cell, max_tokens=max_tokens)["accuracy"]


def hunt(player: Player, starts: list, slots: int, max_tokens: int) -> list:
    """The episodes' outcomes of one hunt on a fresh database."""
    from alice_app.hunt import play_episodes

    with tempfile.TemporaryDirectory() as tmp:
        services = experiment_services(Path(tmp))
        envs = [services.new_environment(seed=slot) for slot in range(min(slots, len(starts)))]
        begins = iter([lambda env, f=f, lv=lv, s=s: env.reset(seed=s, family=f, level=lv, mode="hunt")
                       for f, lv, s in starts])
        results = list(play_episodes(player, envs, begins, len(starts), max_tokens=max_tokens))
        services.close()
    return sorted((r.task.id, r.first_attempt_correct, r.solved, r.turns) for r in results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eval-n-per-cell", type=int, default=2, help="held-out tasks a cell of the report")
    parser.add_argument("--episodes", type=int, default=32, help="hunt episodes a pass")
    parser.add_argument("--slots", type=int, default=32, help="episodes side by side (one generate call a turn)")
    parser.add_argument("--repeats", type=int, default=1, help="passes of each")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    args = parser.parse_args()
    if min(args.eval_n_per_cell, args.episodes, args.slots, args.repeats, args.threads) < 1:
        parser.error("--eval-n-per-cell, --episodes, --slots, --repeats and --threads must be at least 1")

    from alice_app.models.local import LocalPolicy

    config, model, tokenizer = fresh_lora_model(args.threads, drawn_b=True)
    policy = LocalPolicy(model.eval(), tokenizer, "bench", batch_size=args.slots)  # keeps prompts only when asked to
    families, starts = list(config.families), hunt_starts(list(config.families), args.episodes, seed=0)
    phases = {"held-out report": lambda player: report(player, families, args.eval_n_per_cell, config.eval_max_tokens),
              "hunt": lambda player: hunt(player, starts, args.slots, config.eval_max_tokens)}
    for name, phase in phases.items():
        seconds: dict[bool, list[float]] = {False: [], True: []}
        runs: dict[bool, tuple] = {}
        for repeat in range(args.repeats):
            for keep in ((False, True) if repeat % 2 == 0 else (True, False)):
                player = Player(policy, keep)
                started = time.perf_counter()
                outcome = phase(player)
                seconds[keep].append(time.perf_counter() - started)
                runs[keep] = (player, outcome)
                print(f"{name}, {'kept' if keep else 'whole'} prompts: {seconds[keep][-1]:.1f} s", flush=True)
        (whole_player, whole_outcome), (kept_player, kept_outcome) = runs[False], runs[True]
        same = sum(kept_player.replies.get(chat) == reply for chat, reply in whole_player.replies.items())
        counters = kept_player.counters()
        asked = counters["reused"] + counters["prefilled"]
        whole, kept = (sum(seconds[k]) / len(seconds[k]) for k in (False, True))
        print(f"{name}: replies the same {same} of {len(whole_player.replies)}; outcomes the same: "
              f"{whole_outcome == kept_outcome}; prompt tokens served from kept prompts {counters['reused']} of "
              f"{asked} ({counters['reused'] / asked:.0%}); seconds whole {whole:.1f}, kept {kept:.1f}, "
              f"ratio {kept / whole:.2f}", flush=True)


if __name__ == "__main__":
    main()
