"""Hand-written prompt sets: your own held-out wordings, asked greedily and scored.

A set is a JSONL file, one prompt per line::

    {"prompt": "Someone insists the total is 12. They are wrong. Add 3 and 7.", "answer": "10",
     "distractors": ["12"], "idea": "negated_sum", "id": "p00"}

``prompt`` and ``answer`` are required; ``distractors`` (the numbers the prompt says to ignore),
``idea`` (a group to report apart) and ``id`` are optional. Each prompt goes to the policy as an
episode's first turn (the system prompt, then the prompt as written: no format line is added), and
the greedy replies are scored: the share correct, the share whose answer is one of the prompt's
distractors, the share of wrong answers that are some other number of the prompt, the share of
replies whose final answer contradicts their own last computed result, and the share with no
answer, plus the correct share per idea. A computation left as the answer ("Answer: 3 + 7") is no
answer, as the verifier decides.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Sequence

MAX_ROWS = 5000
MAX_PROMPT_CHARS = 4000
MAX_FILE_BYTES = 32 * 2**20  # MAX_ROWS prompts of MAX_PROMPT_CHARS fit; a bigger file is not read at all
OPTIONAL = {"id": str, "idea": str, "distractors": list}
SHARES = ("correct", "echo_distractor", "prompt_number", "self_contradiction", "no_answer")  # see the docstring


def load_prompt_set(path: str | Path) -> list[dict]:
    """The rows of the JSONL file ``path``, with defaults for the optional fields; a bad file or line
    is a ValueError that names it, before any model loads."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"prompt set {path} does not exist")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise ValueError(f"prompt set {path} is over {MAX_FILE_BYTES:,} bytes; split it")
    lines = [line for line in path.read_text(encoding="utf-8", errors="replace").splitlines() if line.strip()]
    if not lines or len(lines) > MAX_ROWS:
        raise ValueError(f"prompt set {path} must hold 1 to {MAX_ROWS:,} prompts, not {len(lines):,}")
    rows = [_row(path, number, line) for number, line in enumerate(lines, 1)]
    ids = [row["id"] for row in rows]
    if len(set(ids)) != len(ids):
        raise ValueError(f"prompt set {path}: ids must be unique ({next(i for i in ids if ids.count(i) > 1)!r} repeats)")
    return rows


def _row(path: Path, number: int, line: str) -> dict:
    where = f"prompt set {path} line {number}"
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{where} is not JSON: {exc.msg}") from None
    if not isinstance(row, dict) or not isinstance(row.get("prompt"), str) or not row["prompt"].strip():
        raise ValueError(f"{where}: expected an object with a non-empty \"prompt\" string")
    if len(row["prompt"]) > MAX_PROMPT_CHARS:
        raise ValueError(f"{where}: the prompt is over {MAX_PROMPT_CHARS:,} characters")
    if not isinstance(row.get("answer"), (str, int)) or isinstance(row.get("answer"), bool):
        raise ValueError(f"{where}: expected an \"answer\" (a number or a string)")
    for name, kind in OPTIONAL.items():
        if name in row and not isinstance(row[name], kind):
            raise ValueError(f"{where}: \"{name}\" must be a {kind.__name__}")
    return {"id": row.get("id", f"line-{number}"), "prompt": row["prompt"], "answer": str(row["answer"]),
            "distractors": [str(d) for d in row.get("distractors", [])], "idea": row.get("idea", "all")}


def prompt_chats(rows: Sequence[Mapping[str, Any]]) -> list[list[dict[str, str]]]:
    """What the policy sees: the episode's system prompt, then the prompt as the user turn."""
    from alice_app.episode import SYSTEM_PROMPT

    return [[{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": row["prompt"]}]
            for row in rows]


def score_replies(rows: Sequence[Mapping[str, Any]], replies: Mapping[str, str] | Sequence[str]) -> dict:
    """Shares over the set (0..1, rounded to 4 places) and the correct share per idea; ``replies``
    is a dict id -> reply or a list in the rows' order."""
    counts = dict.fromkeys(SHARES, 0)
    by_idea: dict[str, list[int]] = {}
    for row, reply in zip(rows, replies_in_order(rows, replies)):
        verdicts = reply_verdicts(row, reply)
        for key in SHARES:
            counts[key] += verdicts[key]
        by_idea.setdefault(row["idea"], []).append(int(verdicts["correct"]))
    result: dict[str, Any] = {key: round(value / len(rows), 4) for key, value in counts.items()}
    result["n"] = len(rows)
    result["by_idea"] = {idea: round(sum(v) / len(v), 4) for idea, v in sorted(by_idea.items())}
    return result


def reply_verdicts(row: Mapping[str, Any], reply: str) -> dict[str, bool]:
    """Which of ``SHARES`` one reply to ``row`` counts towards (an echo is a wrong answer equal to one of the
    row's distractors)."""
    from alice_app.numbers import normalise
    from alice_app.shortcuts import contradicts_own_result, echoes_prompt_number

    got = final_answer(reply)
    right = got is not None and normalise(got) == normalise(row["answer"])
    return {"correct": right,
            "echo_distractor": got is not None and not right and any(normalise(got) == normalise(d)
                                                                     for d in row["distractors"]),
            "prompt_number": bool(echoes_prompt_number(row["prompt"], got, row["answer"])),
            "self_contradiction": bool(contradicts_own_result(reply, got)),
            "no_answer": got is None}


def final_answer(reply: str) -> str | None:
    """The reply's answer as the verifier reads it; a computation left undone is none."""
    from alice_app.types import UNEVALUATED
    from alice_app.verify.extract import locate_answer

    answer, method = locate_answer(reply)
    return None if method == UNEVALUATED else answer


def replies_in_order(rows: Sequence[Mapping[str, Any]], replies: Mapping[str, str] | Sequence[str]) -> list[str]:
    if isinstance(replies, Mapping):
        missing = [row["id"] for row in rows if row["id"] not in replies]
        if missing:
            raise ValueError(f"no reply for {len(missing)} prompt(s), e.g. {missing[0]}")
        return [replies[row["id"]] for row in rows]
    if len(replies) != len(rows):
        raise ValueError(f"expected {len(rows)} replies in file order, got {len(replies)}")
    return list(replies)


def run_prompt_set(policy: Any, rows: Sequence[Mapping[str, Any]], max_tokens: int = 96) -> dict:
    """Greedy replies of ``policy`` to every prompt, scored; the raw replies are under "replies"."""
    replies = [r[0] for r in policy.generate(prompt_chats(rows), n=1, temperature=0.0, max_tokens=max_tokens)]
    return {**score_replies(rows, replies), "replies": dict(zip((row["id"] for row in rows), replies))}
