"""Pure functions for the Training tab: the phase bar, a truthful ETA from measured step times,
the expected time of a run before it starts, and the before/after summary.

Every estimate says what it is computed from; nothing here guesses a number it cannot back.
"""
from __future__ import annotations

import datetime as dt
from statistics import mean
from typing import Any, Mapping, Sequence

from alice_app.ui.formatting import flatten_metrics, format_duration

PHASES = (("loading", "loading the model"), ("eval-before", "before-evaluation"), ("warm-start", "warm start"),
          ("training", "training steps"), ("eval-after", "after-evaluation"))
ACTIVE = ("queued", "running", "stopping")
# Used only until this machine has measured a run: the learning bench's GRPO step times (docs/training_runs.md,
# runs 6-10 and the raw files of assets/learning_history: the embedded SmolLM2-135M, LoRA, 8 completions of
# <= 48 tokens a step, one CPU thread per arm on a 2-core machine shared with other jobs), per completion.
DOCUMENTED_STEP_S = (19.0, 94.0)
DOCUMENTED_COMPLETIONS = 8
EPISODE_STEP_FACTOR = 2.0  # run 7b: an episode-mode step took 72 s where the same settings' grpo step took 35 s
DEFAULT_SETUP_S = 20.0
SECONDS_PER_EVAL_ANSWER = 0.4


def step_times(metrics: Sequence[Mapping[str, Any]]) -> list[float]:
    times = [flatten_metrics(m).get("step_time") for m in metrics]
    return [float(t) for t in times if isinstance(t, (int, float)) and t >= 0]


def seconds_between(start: Any, end: Any) -> float | None:
    try:
        first = dt.datetime.fromisoformat(str(start).replace("Z", "+00:00"))
        last = dt.datetime.fromisoformat(str(end).replace("Z", "+00:00"))
    except ValueError:
        return None
    return max(0.0, (last - first).total_seconds())


def setup_seconds(run: Mapping[str, Any], metrics: Sequence[Mapping[str, Any]]) -> float | None:
    """Loading plus before-evaluation, measured: from the run's start to its first step's end,
    minus that step's own time."""
    if not run.get("started_at") or not metrics:
        return None
    elapsed = seconds_between(run["started_at"], metrics[0].get("ts"))
    first = step_times(metrics[:1])
    warm_start = flatten_metrics(metrics[0]).get("warm_start_seconds") or 0.0  # a row of its own, before step 1
    return None if elapsed is None else max(0.0, elapsed - (first[0] if first else 0.0) - float(warm_start))


def eta_seconds(run: Mapping[str, Any], metrics: Sequence[Mapping[str, Any]]) -> float | None:
    """Remaining steps × the mean measured step time, plus an after-evaluation as long as the
    measured loading + before-evaluation (an upper bound); None before the first step."""
    times = step_times(metrics)
    step, total = int(run.get("step") or 0), int(run.get("total") or 0)
    if not times or not total:
        return None
    after = 0.0
    if int((run.get("config") or {}).get("eval_n_per_cell", 0) or 0) > 0:
        after = setup_seconds(run, metrics) or 0.0
    return max(0, total - step) * mean(times) + after


def phase_bar(run: Mapping[str, Any], phase: str | None) -> str:
    """"✓ loading the model → ✓ before-evaluation → ▶ training steps 3/40 [███░░░░] → after-evaluation"."""
    warm = int((run.get("config") or {}).get("warm_start_prompts", 0) or 0) > 0
    phases = [(name, label) for name, label in PHASES if warm or name != "warm-start"]
    names = [name for name, _ in phases]
    step, total = int(run.get("step") or 0), int(run.get("total") or 0)
    current = names.index(phase) if phase in names else (names.index("training") if step else 0)
    finished = run.get("status") == "completed"
    parts = []
    for index, (name, label) in enumerate(phases):
        if name == "training" and total:
            filled = round(10 * step / total)
            label += f" {step}/{total} [{'█' * filled}{'░' * (10 - filled)}]"
        mark = "✓ " if finished or index < current else ("▶ " if index == current and
                                                         run.get("status") in ACTIVE else "")
        parts.append(f"{mark}{label}")
    return " → ".join(parts)


def format_live(run: Mapping[str, Any] | None, metrics: Sequence[Mapping[str, Any]], phase: str | None) -> str:
    """The progress panel: run, status, the phase bar, the ETA and what it is computed from."""
    if not run:
        return "_No training run yet. Choose a mode and steps, then press **Start**._"
    lines = [f"**Run #{run.get('id')}** · {run.get('kind')} · **{run.get('status')}**"]
    if run.get("kind") == "coevolve":  # rounds of two GRPO phases: no step times, no held-out evaluation
        done, total = int(run.get("step") or 0), int(run.get("total") or 0)
        lines.append(f"{'▶ ' + phase + ' · ' if phase else ''}{done} of {total or '?'} round(s) finished; each "
                     "round's figures are in the runs table below and in the Challenger tab.")
    else:
        lines.append(phase_bar(run, phase))
    if run.get("status") in ACTIVE and run.get("kind") != "coevolve":
        eta = eta_seconds(run, metrics)
        times = step_times(metrics)
        lines.append(f"ETA **{format_duration(eta)}** (mean measured step {mean(times):.1f} s over {len(times)} "
                     "steps, plus an after-evaluation as long as the loading and before-evaluation)"
                     if eta is not None else "ETA: after the first step (it is computed from measured step times).")
    for key, line in (("warm_start_kept", warm_start_line), ("feed_probe_groups", probe_line)):  # step-0 reports
        row = first_row_with(metrics, key)
        if row:
            lines.append(line(row))
    if run.get("error"):
        lines.append(f"⚠ {run['error']}")
    latest = flatten_metrics(metrics[-1]) if metrics else {}
    shown = {k: latest[k] for k in ("reward", "accuracy", "frac_outcome_uniform", "loss", "step_time")
             if isinstance(latest.get(k), (int, float))}
    if shown:
        lines.append("Last step: " + " · ".join(f"{k} {v:.4g}" for k, v in shown.items()))
    return "\n\n".join(lines)


def first_row_with(metrics: Sequence[Mapping[str, Any]], key: str) -> dict[str, Any] | None:
    """The first metrics row (flattened) that has ``key``, or None."""
    return next((row for row in map(flatten_metrics, metrics) if key in row), None)


def warm_start_line(row: Mapping[str, Any]) -> str:
    """"Warm start: 23 correct answers kept of 128 samples (16 prompts) · 6 fine-tuning steps · loss 0.41 · 95 s",
    or, for the engine's worked solutions (nothing sampled), "Warm start: 281 worked solutions (96 tasks in all
    their wordings) · …"."""
    loss = row.get("warm_start_mean_loss")
    kept, samples, prompts = (int(row.get(f"warm_start_{key}", 0)) for key in ("kept", "samples", "prompts"))
    taught = (f"{kept} correct answers kept of {samples} samples ({prompts} prompts)" if samples else
              f"{kept} worked solutions ({prompts} tasks in all their wordings)")
    return (f"Warm start: {taught} · {int(row.get('warm_start_steps', 0))} fine-tuning steps"
            + (f" · loss {loss:.3g}" if isinstance(loss, (int, float)) else "")
            + f" · {format_duration(row.get('warm_start_seconds'))}")


def probe_line(row: Mapping[str, Any]) -> str:
    """"Feed probe: 21 groups of 168 answers, 9 with mixed outcomes (…) · 2m 05s": what the co-evolving feed measured
    before step 1 (``feed_probe``)."""
    groups, mixed, answers = (int(row.get(f"feed_probe_{key}", 0)) for key in ("groups", "mixed", "completions"))
    return (f"Feed probe: {groups} groups of {answers} answers, {mixed} with mixed outcomes (the cells the first "
            f"steps train) · {format_duration(row.get('feed_probe_seconds'))}")


def measured_rates(runs: Sequence[Mapping[str, Any]], metrics_of, completions: int, mode: str,
                   completions_of) -> tuple[tuple[float, float], float, str]:
    """((low, high) seconds per step of a run of ``completions`` completions a step in ``mode``, setup
    seconds, where they come from): the newest run with measured steps, its step time scaled by the
    completions a step (``completions_of(run)``) and episode mode's factor; else the documented range."""
    for run in runs:
        metrics = metrics_of(run["id"])
        times = step_times(metrics)
        if times:
            setup = setup_seconds(run, metrics)
            theirs = completions_of(run)
            step = mean(times) * completions / theirs * _mode_factor(mode) / _mode_factor(str(run.get("kind")))
            source = f"measured in run #{run['id']}" + (
                f" ({theirs} completions a step, scaled to {completions})" if theirs != completions else "")
            return (step, step), DEFAULT_SETUP_S if setup is None else setup, source
    low, high = (t * completions / DOCUMENTED_COMPLETIONS * _mode_factor(mode) for t in DOCUMENTED_STEP_S)
    return ((low, high), DEFAULT_SETUP_S, "the learning bench's step times on a shared 2-core CPU, scaled to "
            f"{completions} completions a step (docs/training_runs.md; no run measured here yet)")


def _mode_factor(mode: str) -> float:
    """A step's time in ``mode`` relative to a grpo step of the same completions."""
    return EPISODE_STEP_FACTOR if mode == "episode" else 1.0


# One GRPO step's time fine-tunes on the worked solutions of about this many tasks (measured on the 2-core CPU:
# 96 tasks of three families, 281 examples, in 260 s, where a step of 8 completions took about 20 s).
WORKED_TASKS_PER_STEP = 8
WORDINGS_PER_TASK = 3  # the 281 examples of those 96 tasks


def warm_start_step_equivalents(prompts: int, source: str, prompts_per_step: int, repairs: int = 0) -> float:
    """How many GRPO steps' time a warm start of ``prompts`` tasks and up to ``repairs`` repairs of the bank
    takes: sampling answers each as steps do; the engine's worked solutions need only the fine-tuning, of
    one example a repair where a task gives one per wording (about ``WORDINGS_PER_TASK``)."""
    if source == "worked":
        return (prompts + repairs / WORDINGS_PER_TASK) / WORKED_TASKS_PER_STEP
    return (prompts + repairs) / prompts_per_step


# A probe's group (k answers, no backward pass) takes about this share of a step of one prompt (run 29 on the 2-core
# CPU: 21 groups in 2.2 CPU-minutes, 45 steps in 13.3).
PROBE_GROUP_STEP_SHARE = 0.35


def probe_step_equivalents(per_cell: int, cells: int, prompts_per_step: int) -> float:
    """How many GRPO steps' time a feed probe of ``per_cell`` tasks in each of ``cells`` frontier cells takes."""
    return per_cell * cells * PROBE_GROUP_STEP_SHARE / prompts_per_step


def format_expected(steps: int, eval_n: int, cells: int, step_s: tuple[float, float], setup_s: float, source: str,
                    warm_start_steps: float = 0.0, probe_steps: float = 0.0, redraws: int = 0) -> str:
    """The warning shown before Start: how long the run should take on this machine (a range until a
    run has been measured here). A warm start takes about the time of ``warm_start_steps`` GRPO steps
    (``warm_start_step_equivalents``), a feed probe that of ``probe_steps`` (``probe_step_equivalents``);
    ``redraws`` (``redraw_uniform``) more generations a step may cost are named, not counted: how often they
    happen depends on the model."""
    evaluation = eval_n * cells * SECONDS_PER_EVAL_ANSWER

    def span(values) -> str:
        low, high = (format_duration(v) for v in values)
        return low if low == high else f"{low}–{high}"

    totals = [setup_s + (steps + warm_start_steps + probe_steps) * step + evaluation for step in step_s]
    per_step = "–".join(dict.fromkeys(f"{step:.1f}" for step in step_s))
    warm = (f"up to {span([warm_start_steps * step for step in step_s])} warm start (about the time of "
            f"{warm_start_steps:g} steps), " if warm_start_steps else "")
    probe = (f"up to {span([probe_steps * step for step in step_s])} feed probe (about the time of "
             f"{probe_steps:.0f} steps), " if probe_steps else "")
    return (f"Expected: about **{span(totals)}**: {steps} steps × {per_step} s, {warm}{probe}"
            f"{format_duration(setup_s)} loading and before-evaluation, {format_duration(evaluation)} after-evaluation "
            f"({eval_n} tasks × {cells} family × level cells); from {source}.{_redraw_caveat(redraws)} "
            "The workbench stays usable meanwhile.")


def _redraw_caveat(redraws: int) -> str:
    if not redraws:
        return ""
    return (f" A step whose groups all have one outcome generates again, up to {redraws} more time"
            f"{'s' if redraws > 1 else ''} (redraw_uniform), so a step may take up to {redraws + 1}× the time above.")


def format_eval_summary(run: Mapping[str, Any] | None, evals: Mapping[str, Any]) -> str:
    """One line under the heatmap: mean accuracy before → after, or why there is no "after"."""
    if not run:
        return ""
    before, after = _cells(evals.get("before")), _cells(evals.get("after"))
    if before and after:
        shared = sorted(set(before) & set(after))
        b, a = mean(before[c] for c in shared), mean(after[c] for c in shared)
        better = sum(after[c] > before[c] for c in shared)
        worse = sum(after[c] < before[c] for c in shared)
        return (f"Mean held-out accuracy **{100 * b:.0f}% → {100 * a:.0f}%** ({100 * (a - b):+.1f} points) over "
                f"{len(shared)} family × level cells: {better} better, {worse} worse.{_penalty_change(evals)}")
    if not before and not after:
        return "_This run stores no held-out evaluation (held-out tasks per cell was 0)._"
    status = run.get("status")
    why = {"stopped": f"it was stopped at step {run.get('step')}/{run.get('total')}, and the after-evaluation runs "
                      "only when training completes",
           "failed": f"it failed ({run.get('error') or 'no error recorded'})",
           }.get(status, "it has not finished yet")
    return f"Run #{run.get('id')} has a before-evaluation but no after-evaluation: {why}."


def _penalty_change(evals: Mapping[str, Any]) -> str:
    """" Distraction penalty … → …", when the run evaluated families beside their control twins."""
    from alice_app.evaluation import headline_penalty, penalty_from_table

    before, after = (headline_penalty(penalty_from_table(accuracy_table(evals.get(phase)))) for phase in
                     ("before", "after"))
    if before is None or after is None:
        return ""
    return (f" Distraction penalty (control − family accuracy, easy/medium) **{before:+.2f} → {after:+.2f}**"
            f"{' (closed by ' + format(1 - after / before, '.0%') + ')' if before > 0 else ''}.")


def accuracy_table(table: Mapping[str, Any] | None) -> dict[str, dict[str, float]]:
    """``{family: {level: accuracy}}`` from a stored evaluation (a bare table, or a report with an
    "accuracy" key)."""
    table = table or {}
    if isinstance(table.get("accuracy"), Mapping):
        table = table["accuracy"]
    return {f: {lv: float(v) for lv, v in levels.items() if isinstance(v, (int, float))}
            for f, levels in table.items() if isinstance(levels, Mapping)}


def _cells(table: Mapping[str, Any] | None) -> dict[tuple[str, str], float]:
    return {(f, lv): v for f, levels in accuracy_table(table).items() for lv, v in levels.items()}
