"""Pure formatters: service data in, Markdown strings and table rows out.

Nothing here touches gradio or the database, so every function is unit-tested on plain dicts.
The shapes follow docs/CONTRACTS.md (Observation, environment state, FailureBank rows, RunStore rows).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from alice_app.types import TURN_KINDS

TURNS_PER_EPISODE = len(TURN_KINDS)
FAILURE_COLUMNS = ["id", "family", "level", "mode", "response", "expected", "seen", "repaired", "tags", "last seen"]
PROGRESS_METRICS = ("loss", "reward", "accuracy", "frac_outcome_uniform", "frac_reward_zero_std", "lr", "step_time")
RUN_COLUMNS = ["id", "kind", "status", "step", "total", "created", "error"]
CURRICULUM_COLUMNS = ["family", "level", "pinned", "rolling accuracy", "samples"]


def _get(obj: Any, name: str, default: Any = None) -> Any:
    """Read a field from a dataclass or a dict alike (Observation may be either)."""
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def shorten(text: Any, limit: int = 80) -> str:
    flat = " ".join(str(text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def escape(text: Any) -> str:
    """Task and model text shown as Markdown: angle brackets would be read (and dropped) as HTML."""
    return str(text or "").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def quote(text: Any) -> str:
    """A Markdown block quote of any (multi-line, untrusted) text."""
    return "\n".join(f"> {line}" for line in escape(text).splitlines() or [""])


def format_percent(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.0f}%"


# ---------------------------------------------------------------- episode
def format_verdict(verdict: Mapping[str, Any] | None) -> str:
    if not verdict:
        return "_No answer judged yet._"
    mark = "✓ correct" if verdict.get("is_correct") else "✗ wrong"
    extracted = verdict.get("extracted")
    found = f" · extracted `{extracted}`" if extracted is not None else " · no answer extracted"
    return (
        f"**{mark}** · confidence {float(verdict.get('confidence', 0)):.2f} · tier {verdict.get('tier')}{found}\n\n"
        f"{escape(verdict.get('feedback', ''))}"
    )


def reward_parts(reward: Any) -> tuple[float | None, dict[str, float]]:
    """A reward may arrive as a Reward dict ({total, components}) or a bare number."""
    if reward is None:
        return None, {}
    if isinstance(reward, Mapping):
        return float(reward.get("total", 0.0)), dict(reward.get("components") or {})
    return float(reward), {}


def format_answer_key(answer: Any, hint: str | None) -> str:
    """Once the episode is over, the expected answer and the hint may be shown."""
    lines = [f"**Expected answer:** `{escape(answer)}`"]
    if hint:
        lines.append(f"**Hint:** {escape(hint)}")
    return "\n\n".join(lines)


def format_outcome(observation: Any) -> str:
    info = _get(observation, "info") or {}
    solved = info.get("solved", (_get(observation, "verdict") or {}).get("is_correct"))
    if solved:
        return f"**Solved** at turn {_get(observation, 'turn')}."
    banked = info.get("failure_id")
    where = f" (failure #{banked})" if banked else ""
    return f"**Not solved after {TURNS_PER_EPISODE} turns.** The episode was added to the failure bank{where}."


# ---------------------------------------------------------------- failure bank
def failure_rows(rows: Sequence[Mapping[str, Any]]) -> list[list[Any]]:
    return [[
        r.get("id"), r.get("family"), r.get("level"), r.get("mode"), shorten(r.get("response"), 50),
        r.get("expected"), r.get("times_seen"), "yes" if r.get("repaired") else "no",
        ", ".join(r.get("tags") or []), str(r.get("last_seen") or "")[:19],
    ] for r in rows]


def page_count(total: int, page_size: int) -> int:
    return max(1, -(-total // max(1, page_size)))


NO_FAILURES = ("No failure matches these filters. An unsolved episode in the Episode tab is banked here, and "
               "`python -m alice_app hunt --episodes 50` banks many; or loosen the filters (Source (all) adds "
               "the training runs' failures).")


def format_page_info(total: int, page: int, page_size: int) -> str:
    if not total:
        return NO_FAILURES
    return f"Page {page} of {page_count(total, page_size)} · {total:,} failure{'s' if total != 1 else ''}"


def format_marked(changed: int, asked: int, repaired: bool) -> str:
    """What "Mark repaired" did: only rows that exist count (issue 12, bug 5)."""
    state = "repaired" if repaired else "unrepaired"
    if not changed:
        return f"⚠ No failure with {'that id' if asked == 1 else 'those ids'} exists; nothing was marked."
    missing = f" ({asked - changed:,} of the ids given do not exist)" if asked > changed else ""
    return f"Marked {changed:,} failure{'s' if changed != 1 else ''} as {state}{missing}."


def format_recheck(outcomes: Mapping[int, bool], episodes: int, model: str, replay: str) -> str:
    """What a recheck did: which rechecked failures are now marked repaired, which still fail a variant."""
    repaired = [f"#{row}" for row, done in outcomes.items() if done]
    failing = [f"#{row}" for row, done in outcomes.items() if not done]
    lines = [f"Rechecked {len(outcomes):,} failure{'s' if len(outcomes) != 1 else ''} ({episodes:,} episodes, "
             f"{model}): **{len(repaired):,} now marked repaired**"
             + (f" ({', '.join(repaired)})" if repaired else "") + "."]
    if failing:
        lines.append(f"Still failing a fresh variant: {', '.join(failing)}.")
    lines.append(f"Replay it: `{replay}`")
    return "  \n".join(lines)


def format_failure_detail(row: Mapping[str, Any] | None, modes: Sequence[str | None] = ()) -> str:
    """The whole failure; ``modes`` labels each turn of its episode history (None = correct)."""
    if not row:
        return "_Select a row (or type its id and press **Open**) to see the whole failure._"
    verdict = row.get("verdict") or {}
    tags = ", ".join(f"`{t}`" for t in row.get("tags") or []) or "none"
    lines = [
        f"### Failure #{row.get('id')} · {row.get('family')} · {row.get('level')} · mode `{row.get('mode')}`",
        f"**Task** (`{row.get('task_id')}`, seed {row.get('seed')}):\n\n{quote(row.get('prompt'))}",
        f"**Response:**\n\n{quote(row.get('response'))}",
        f"**Expected:** `{row.get('expected')}` · **extracted:** `{row.get('extracted')}`",
        f"**Verdict:** {format_verdict(verdict)}",
        f"**Seen** {row.get('times_seen')}× · **repaired:** {'yes' if row.get('repaired') else 'no'} "
        f"({row.get('repair_successes', 0)} repair successes) · **source:** {row.get('source')}",
        f"**Tags:** {tags} · **first seen** {row.get('created_at')} · **last seen** {row.get('last_seen')}",
    ]
    history = row.get("history") or []
    if history:
        labels = list(modes) + [None] * (len(history) - len(modes))
        lines.append("**Episode history** (the failure is labelled by the first attempt):\n\n" +
                     "\n".join(format_history_line(turn, mode) for turn, mode in zip(history, labels)))
    return "\n\n".join(lines)


def format_history_line(turn: Mapping[str, Any], mode: str | None = None) -> str:
    """One banked turn: "2. feedback · ✗ `distractor_echo` · `Answer: 14` · You answered 14, which …"."""
    verdict = turn.get("verdict") or {}
    mark = "✓" if verdict.get("is_correct") else "✗" + (f" `{mode}`" if mode else "")
    return (f"{turn.get('index')}. {turn.get('kind')} · {mark} · `{escape(shorten(turn.get('response'), 100))}`"
            f" · {escape(shorten(verdict.get('feedback'), 160))}")


# ---------------------------------------------------------------- curriculum
def curriculum_rows(states: Mapping[str, Any], accuracy_of) -> list[list[Any]]:
    """One row per family; ``accuracy_of`` is curriculum.rolling_accuracy (kept injectable)."""
    return [[
        name, _get(state, "level"), _get(state, "pinned") or "", format_percent(accuracy_of(state)),
        len(_get(state, "outcomes") or ()),
    ] for name, state in sorted(states.items())]


def format_curriculum_config(config: Any) -> str:
    zone = _get(config, "zone") or (None, None)
    return (
        f"Window **{_get(config, 'window')}** answers · promote at **{format_percent(_get(config, 'promote_at'))}** · "
        f"demote at **{format_percent(_get(config, 'demote_at'))}** · min samples **{_get(config, 'min_samples')}** · "
        f"discrimination zone **{zone[0]:.2f}–{zone[1]:.2f}** · repair mix **{format_percent(_get(config, 'repair_mix'))}**"
    )


def format_pinned(family: str, level: str, was: str, answers: int) -> str:
    """What pinning did to the family's rolling window (kept at the same level, restarted at another)."""
    one = answers == 1
    if level == was:
        kept = f"; its {answers} recent answer{'' if one else 's'} still count{'s' if one else ''}" if answers else ""
        return f"{family} pinned at {level}: it stays there until unpinned{kept}."
    lost = (f" The {answers} answer{'' if one else 's'} counted at {was} no longer appl{'ies' if one else 'y'}: "
            "its rolling accuracy restarts.") if answers else ""
    return f"{family} pinned at {level} (was {was}): it stays there until unpinned.{lost}"


# ---------------------------------------------------------------- training
def format_duration(seconds: float | None) -> str:
    if seconds is None or seconds < 0:
        return "—"
    minutes, secs = divmod(int(round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m" if hours else f"{minutes}m {secs:02d}s" if minutes else f"{secs}s"


def estimate_eta(step: int, total: int, elapsed_s: float | None) -> float | None:
    if not total:
        return None
    if step >= total:
        return 0.0
    return None if not step or elapsed_s is None else elapsed_s / step * (total - step)


def format_progress(run: Mapping[str, Any] | None, metrics: Sequence[Mapping[str, Any]], elapsed_s: float | None) -> str:
    if not run:
        return "_No training run yet. Choose a mode and steps, then press **Start**._"
    step, total = int(run.get("step") or 0), int(run.get("total") or 0)
    bar = f"{step}/{total}" if total else f"{step}"
    eta = (f" · ETA {format_duration(estimate_eta(step, total, elapsed_s))}"
           if run.get("status") in ("queued", "running", "stopping") else "")
    lines = [f"**Run #{run.get('id')}** · {run.get('kind')} · **{run.get('status')}** · step {bar}{eta}"]
    if run.get("error"):
        lines.append(f"⚠ {run['error']}")
    latest = flatten_metrics(metrics[-1]) if metrics else {}
    shown = {k: latest[k] for k in PROGRESS_METRICS if isinstance(latest.get(k), (int, float))}
    if shown:
        lines.append(" · ".join(f"{k} {v:.4g}" for k, v in shown.items()))
    return "\n\n".join(lines)


def flatten_metrics(row: Mapping[str, Any]) -> dict[str, Any]:
    """Metric rows may nest their values under 'metrics'; charts want one flat dict per step."""
    flat = {k: v for k, v in row.items() if k != "metrics"}
    nested = row.get("metrics")
    if isinstance(nested, Mapping):
        flat.update(nested)
    return flat


def run_rows(runs: Sequence[Mapping[str, Any]]) -> list[list[Any]]:
    return [[
        r.get("id"), r.get("kind"), r.get("status"), r.get("step"), r.get("total"),
        str(r.get("created_at") or "")[:19], shorten(r.get("error"), 60),
    ] for r in runs]


def eval_rows(evals: Mapping[str, Any]) -> list[list[Any]]:
    """Before/after table: one row per family × level, with the change in points."""
    before, after = evals.get("before") or {}, evals.get("after") or {}
    rows = []
    for family in sorted(set(before) | set(after)):
        for level in sorted(set(before.get(family, {})) | set(after.get(family, {}))):
            b, a = before.get(family, {}).get(level), after.get(family, {}).get(level)
            delta = None if a is None or b is None else round(100 * (a - b), 1)
            rows.append([family, level, format_percent(b), format_percent(a), delta])
    return rows
