from types import SimpleNamespace

import pytest

from alice_app.ui import formatting as fmt

VERDICT = {"is_correct": False, "confidence": 0.9, "feedback": "You answered 14, the number to ignore.",
           "tier": 1, "extracted": "14"}


def observation(**changes):
    base = dict(task_id="negation_arithmetic/easy/3", family="negation_arithmetic", level="easy",
                prompt="If the result is NOT 14, what is 3 + 4?", turn=1, kind="feedback", done=False,
                reward=0.0, verdict=VERDICT, feedback=VERDICT["feedback"], hint=None,
                messages=[{"role": "user", "content": "You answered 14. Try again."}], info={})
    return SimpleNamespace(**{**base, **changes})


def test_verdict_shows_every_field():
    text = fmt.format_verdict(VERDICT)
    assert "✗ wrong" in text and "0.90" in text and "tier 1" in text and "`14`" in text and "ignore" in text
    assert "✓ correct" in fmt.format_verdict({**VERDICT, "is_correct": True})
    assert "no answer extracted" in fmt.format_verdict({**VERDICT, "extracted": None})
    assert "No answer" in fmt.format_verdict(None)


def test_answer_key_and_escaping():
    assert fmt.format_answer_key("7", "Ignore <w>.") == "**Expected answer:** `7`\n\n**Hint:** Ignore &lt;w&gt;."
    assert fmt.quote('End with "Answer: <number>"\nnext') == '> End with "Answer: &lt;number&gt;"\n> next'
    assert fmt.quote("") == "> "


def test_outcome_names_the_banked_failure():
    assert "Solved" in fmt.format_outcome(observation(done=True, info={"solved": True}, turn=2))
    text = fmt.format_outcome(observation(done=True, info={"solved": False, "failure_id": 12}))
    assert "failure bank" in text and "#12" in text


def test_failure_rows_and_detail():
    row = {"id": 7, "task_id": "t/easy/1", "family": "t", "level": "easy", "mode": "distractor_echo",
           "response": "x" * 200, "expected": "7", "extracted": "14", "times_seen": 3, "repaired": False,
           "tags": ["review", "x"], "last_seen": "2026-11-30T09:00:00.000Z", "prompt": "What?", "verdict": VERDICT,
           "seed": 1, "source": "manual", "notes": "", "task": {}, "created_at": "2026-11-30"}
    cells = fmt.failure_rows([row])[0]
    assert cells[0] == 7 and cells[4].endswith("…") and len(cells[4]) == 50 and cells[8] == "review, x"
    detail = fmt.format_failure_detail(row)
    assert "Failure #7" in detail and "`review`" in detail and "Seen** 3×" in detail and "What?" in detail
    assert "Select a row" in fmt.format_failure_detail(None)


@pytest.mark.parametrize("total,size,pages", [(0, 50, 1), (1, 50, 1), (50, 50, 1), (51, 50, 2), (100_000, 25, 4000)])
def test_page_count(total, size, pages):
    assert fmt.page_count(total, size) == pages


def test_page_info():
    assert fmt.format_page_info(100_000, 3, 50) == "Page 3 of 2000 · 100,000 failures"
    assert fmt.format_page_info(1, 1, 50) == "Page 1 of 1 · 1 failure"
    assert "hunt --episodes" in fmt.format_page_info(0, 1, 50)  # an empty page says how to fill the bank


def test_curriculum_rows_and_config():
    states = {"b": SimpleNamespace(level="medium", pinned=None, outcomes=(True, False)),
              "a": SimpleNamespace(level="easy", pinned="easy", outcomes=())}
    rows = fmt.curriculum_rows(states, lambda s: (sum(s.outcomes) / len(s.outcomes)) if s.outcomes else None)
    assert rows == [["a", "easy", "easy", "—", 0], ["b", "medium", "", "50%", 2]]
    config = SimpleNamespace(window=20, promote_at=0.8, demote_at=0.3, min_samples=8, zone=(0.2, 0.8), repair_mix=0.3)
    text = fmt.format_curriculum_config(config)
    assert "Window **20**" in text and "80%" in text and "0.20–0.80" in text and "repair mix **30%**" in text


def test_duration_and_eta():
    assert fmt.format_duration(None) == "—"
    assert fmt.format_duration(42) == "42s" and fmt.format_duration(125) == "2m 05s"
    assert fmt.format_duration(3725) == "1h 02m"
    assert fmt.estimate_eta(5, 20, 50.0) == 150.0
    assert fmt.estimate_eta(0, 20, None) is None and fmt.estimate_eta(20, 20, 99.0) == 0.0
    assert fmt.estimate_eta(0, 0, None) is None


def test_progress_shows_step_eta_metrics_and_error():
    run = {"id": 3, "kind": "grpo", "status": "running", "step": 5, "total": 20, "error": None}
    metrics = [{"step": 5, "metrics": {"reward": 0.25, "loss": 0.01, "completions/mean_length": 3.0}}]
    text = fmt.format_progress(run, metrics, 50.0)
    assert "Run #3" in text and "step 5/20" in text and "ETA 2m 30s" in text and "reward 0.25" in text
    assert "mean_length" not in text
    failed = fmt.format_progress({**run, "status": "failed", "error": "boom"}, [], None)
    assert "⚠ boom" in failed and "ETA" not in failed
    assert "No training run yet" in fmt.format_progress(None, [], None)


def test_eval_rows_give_change_in_points():
    evals = {"before": {"neg": {"easy": 0.1, "hard": 0.0}}, "after": {"neg": {"easy": 0.85}}}
    assert fmt.eval_rows(evals) == [["neg", "easy", "10%", "85%", 75.0], ["neg", "hard", "0%", "—", None]]
    assert fmt.eval_rows({}) == []


def test_run_rows():
    run = {"id": 1, "kind": "grpo", "status": "completed", "step": 2, "total": 2,
           "created_at": "2026-11-30T09:00:00.123Z", "error": None}
    assert fmt.run_rows([run]) == [[1, "grpo", "completed", 2, 2, "2026-11-30T09:00:00", ""]]


def test_failure_detail_lists_the_banked_episode_turn_by_turn():
    history = [
        {"index": 1, "kind": "attempt", "response": "Answer: 14",
         "verdict": {"is_correct": False, "feedback": "You answered 14, which is the number the task told you to ignore."}},
        {"index": 2, "kind": "feedback", "response": "Answer: 15", "verdict": {"is_correct": False, "feedback": "Off by one."}},
    ]
    detail = fmt.format_failure_detail({"id": 3, "verdict": {}, "tags": [], "history": history},
                                       ["distractor_echo", "off_by_one"])
    assert "**Episode history** (the failure is labelled by the first attempt):" in detail
    assert ("1. attempt · ✗ `distractor_echo` · `Answer: 14` · You answered 14, which is the number the task told "
            "you to ignore.") in detail
    assert "2. feedback · ✗ `off_by_one` · `Answer: 15` · Off by one." in detail
    assert "Episode history" not in fmt.format_failure_detail({"id": 4, "verdict": {}, "tags": [], "history": []})
