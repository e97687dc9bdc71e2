"""The hand-written paraphrase set: schema, checked answers, and no overlap with any template."""
import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

from alice_app.prompt_sets import score_replies
from bench.paraphrases import PARITY_PATH, PATH, load_paraphrases
from alice_app.tasks import family_names, generate_task
from alice_app.tasks._common import ANSWER_FORMAT
from alice_app.types import LEVELS

# Phrases the task templates are built from; a paraphrase must use none of them.
TEMPLATE_PHRASES = ("the result is NOT", "the result is not", "the result isn't", "says that", "Which is NOT",
                    "which is not the", "Count the numbers that", "ignored the order of operations",
                    "What is the answer? Give its value.", "with the usual order of operations",
                    "The answer is one of", ANSWER_FORMAT)


def _builder():
    spec = importlib.util.spec_from_file_location("build_paraphrases", ROOT / "bench/data/build_paraphrases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_schema_size_and_ideas():
    rows = load_paraphrases()
    assert len(rows) >= 60
    assert len({row["id"] for row in rows}) == len(rows)
    assert len({row["prompt"] for row in rows}) == len(rows)
    ideas = {row["idea"] for row in rows}
    assert ideas == {"negated_sum", "false_claim", "not_the_extreme", "double_negation", "exclusion_counting",
                     "order_of_ops"}
    for row in rows:
        assert row["answer"].lstrip("-").isdigit()
        assert row["answer"] not in row["distractors"]
    assert sum("Answer" not in row["prompt"] for row in rows) >= len(rows) // 2  # many lack a format line


def test_file_is_what_the_checked_builder_writes():
    """The builder recomputes every answer and refuses a mismatch; the file must be its output."""
    rows = _builder().build()
    assert [json.loads(line) for line in PATH.read_text().splitlines()] == rows


def test_the_negation_parity_set_is_balanced_checked_and_what_the_builder_writes():
    """Answering the named candidate must score exactly 0.5 on it: as many odd counts as even ones, every prompt
    with two candidates (the answer and one distractor, the other candidate)."""
    builder = _builder()
    rows = load_paraphrases(PARITY_PATH)
    assert [json.loads(line) for line in PARITY_PATH.read_text().splitlines()] == builder.build(builder.PARITY_ENTRIES, "n")
    ideas = [row["idea"] for row in rows]
    assert len(rows) >= 24 and ideas.count("odd_negations") == ideas.count("even_negations") == len(rows) // 2
    for row in rows:
        assert len(row["distractors"]) == 1 and row["answer"] not in row["distractors"]
    wrong_parity = [("odd_negations", "Pick 3 or 4. It is untrue that the pick isn't 3. Which?", 4, "4", [3])]
    with pytest.raises(AssertionError, match="2 negation words, filed as odd_negations"):
        builder.build(wrong_parity, "n")


def test_no_prompt_is_a_template_output():
    prompts = {row["prompt"] for row in load_paraphrases() + load_paraphrases(PARITY_PATH)}
    for family in family_names():
        for level in LEVELS:
            for seed in range(40):
                try:
                    task = generate_task(family, level, seed)
                except Exception:  # an adapter family whose optional package is missing
                    break
                question = task.prompt.split("\n")[0]
                assert task.prompt not in prompts and question not in prompts
    for prompt in prompts:
        assert not any(phrase in prompt for phrase in TEMPLATE_PHRASES), prompt


def test_score_counts_correct_echo_and_contradiction():
    rows = [{"id": "a", "prompt": "Someone insists the total is 12. Add 3 and 7.", "answer": "10",
             "distractors": ["12"], "idea": "negated_sum"},
            {"id": "b", "prompt": "Tom wrote 11 for 5 + 5.", "answer": "10", "distractors": ["11"],
             "idea": "false_claim"}]
    score = score_replies(rows, {"a": "3 + 7 = 10\nAnswer: 10", "b": "5 + 5 = 10 The answer is 11"})
    assert score["correct"] == 0.5 and score["echo_distractor"] == 0.5
    assert score["self_contradiction"] == 0.5 and score["prompt_number"] == 0.5
    assert score["by_idea"] == {"false_claim": 0.0, "negated_sum": 1.0}
    with pytest.raises(ValueError, match="no reply"):
        score_replies(rows, {"a": "10"})
    with pytest.raises(ValueError, match="expected 2 replies"):
        score_replies(rows, ["10"])


def test_every_idea_names_a_real_family_and_a_run_is_judged_on_its_trained_ideas():
    from alice_app.tasks.registry import family_names
    from bench.paraphrases import IDEA_FAMILIES, load_paraphrases, trained_ideas

    assert {row["idea"] for row in load_paraphrases()} == set(IDEA_FAMILIES)
    assert set(IDEA_FAMILIES.values()) <= set(family_names())
    assert trained_ideas(["negation_arithmetic", "plain_arithmetic"]) == ["negated_sum"]
    assert trained_ideas(["plain_arithmetic"]) == []
