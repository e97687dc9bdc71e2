"""The hand-written paraphrase set (bench/data/paraphrases.jsonl): load, run, score.

Prompts in wordings no task template uses, about the same ideas (negated sums, false claims,
"not the smaller", double negation, exclusion counting, order-of-ops distractors). Never trained
on. ``score_paraphrases`` takes the policy's replies (a dict id -> reply, or a list in file order)
and returns shares: correct, echo_distractor (the answer is one of the prompt's distractors),
prompt_number (a wrong answer that is any number of the prompt), self_contradiction and
no_answer, plus the correct share per idea.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Mapping, Sequence

PATH = Path(__file__).resolve().parent / "data" / "paraphrases.jsonl"
# The task family each idea paraphrases: a run trained on some families is judged on their ideas too.
IDEA_FAMILIES = {"negated_sum": "negation_arithmetic", "false_claim": "false_claim",
                 "not_the_extreme": "negated_comparison", "double_negation": "double_negation",
                 "exclusion_counting": "exclusion_counting", "order_of_ops": "distractor_order_of_ops"}
FIELDS = {"id": str, "prompt": str, "answer": str, "distractors": list, "idea": str}


def load_paraphrases(path: Path = PATH) -> list[dict]:
    rows = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    for number, row in enumerate(rows, 1):
        if set(row) != set(FIELDS) or any(not isinstance(row[k], t) for k, t in FIELDS.items()):
            raise ValueError(f"{path} line {number}: expected fields {sorted(FIELDS)} with the right types")
    return rows


def _replies(rows: list[dict], policy_answers: Mapping[str, str] | Sequence[str]) -> list[str]:
    if isinstance(policy_answers, Mapping):
        missing = [row["id"] for row in rows if row["id"] not in policy_answers]
        if missing:
            raise ValueError(f"no reply for {len(missing)} paraphrase(s), e.g. {missing[0]}")
        return [policy_answers[row["id"]] for row in rows]
    if len(policy_answers) != len(rows):
        raise ValueError(f"expected {len(rows)} replies in file order, got {len(policy_answers)}")
    return list(policy_answers)


def score_paraphrases(policy_answers: Mapping[str, str] | Sequence[str], rows: list[dict] | None = None) -> dict:
    """Shares over the set (0..1), rounded to 4 places; see the module docstring."""
    from alice_app.shortcuts import contradicts_own_result, echoes_prompt_number
    from alice_app.verify.extract import extract_answer
    from alice_app.numbers import normalise

    rows = rows if rows is not None else load_paraphrases()
    counts = {"correct": 0, "echo_distractor": 0, "prompt_number": 0, "self_contradiction": 0, "no_answer": 0}
    by_idea: dict[str, list[int]] = {}
    for row, reply in zip(rows, _replies(rows, policy_answers)):
        got = extract_answer(reply)
        right = got is not None and normalise(got) == normalise(row["answer"])
        counts["correct"] += right
        counts["echo_distractor"] += got is not None and not right and any(
            normalise(got) == normalise(d) for d in row["distractors"])
        counts["prompt_number"] += echoes_prompt_number(row["prompt"], got, row["answer"])
        counts["self_contradiction"] += contradicts_own_result(reply, got)
        counts["no_answer"] += got is None
        by_idea.setdefault(row["idea"], []).append(int(right))
    n = len(rows)
    result = {key: round(value / n, 4) for key, value in counts.items()}
    result["n"] = n
    result["by_idea"] = {idea: round(sum(v) / len(v), 4) for idea, v in sorted(by_idea.items())}
    return result


def paraphrase_chats(rows: list[dict]) -> list[list[dict[str, str]]]:
    """What the policy sees: the episode's system prompt, then the paraphrase as the user turn."""
    from alice_app.episode import SYSTEM_PROMPT

    return [[{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": row["prompt"]}]
            for row in rows]


def run_paraphrases(policy, max_tokens: int = 96, rows: list[dict] | None = None) -> dict:
    """Greedy replies of ``policy`` to every paraphrase, scored; adds the raw replies under "replies"."""
    rows = rows if rows is not None else load_paraphrases()
    replies = [r[0] for r in policy.generate(paraphrase_chats(rows), n=1, temperature=0.0, max_tokens=max_tokens)]
    return {**score_paraphrases(replies, rows), "replies": dict(zip((r["id"] for r in rows), replies))}


def trained_ideas(families) -> list[str]:
    """The ideas whose family is among ``families`` (a run's training families)."""
    return [idea for idea, family in IDEA_FAMILIES.items() if family in set(families)]
