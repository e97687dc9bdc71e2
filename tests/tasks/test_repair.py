from collections import Counter
from random import Random

import pytest

from alice_app.tasks import family_names, generate_task
from alice_app.tasks._arith import evaluate
from alice_app.tasks.repair import contrastive_variant, pick_failures, same_template_variant


def rows(n=10, **overrides):
    return [{"id": i, "repaired": False, "times_seen": 1, "last_seen": "2026-01-01T00:00:00", **overrides}
            for i in range(n)]


def picked_counts(failures, k=1, trials=2000):
    return Counter(row["id"] for t in range(trials) for row in pick_failures(failures, k, Random(t)))


def test_pick_is_deterministic_for_an_rng_state_and_distinct():
    failures = rows(20)
    first = pick_failures(failures, 5, Random(3))
    assert first == pick_failures(failures, 5, Random(3))
    assert len({row["id"] for row in first}) == 5


def test_pick_bounds():
    assert pick_failures([], 3, Random(0)) == []
    assert len(pick_failures(rows(2), 5, Random(0))) == 2
    assert pick_failures(rows(2), 0, Random(0)) == []
    with pytest.raises(ValueError, match="k must be"):
        pick_failures(rows(2), -1, Random(0))


def test_pick_prefers_unrepaired_frequent_and_recent():
    failures = rows(2)
    failures[1]["repaired"] = True  # and the more recent of the two (same stamp, recorded later)
    counts = picked_counts(failures)
    assert counts[0] > 1.5 * counts[1]

    failures = rows(2)
    failures[1]["times_seen"] = 30
    counts = picked_counts(failures)
    assert counts[1] > 1.5 * counts[0]

    failures = rows(2)
    failures[1]["last_seen"] = "2026-06-01T00:00:00"
    counts = picked_counts(failures)
    assert counts[1] > 1.3 * counts[0]


def test_pick_does_not_depend_on_row_order_or_on_which_stamps_share_a_millisecond():
    """The same failures recorded in the same order, on a fast and a slow clock, are picked alike."""
    fast = rows(6, last_seen="2026-01-01T00:00:00.001Z")  # all recorded within one millisecond
    slow = [{**row, "last_seen": f"2026-01-01T00:00:00.00{row['id']}Z"} for row in fast]
    for rng_seed in range(20):
        picked = [row["id"] for row in pick_failures(fast, 6, Random(rng_seed))]
        assert picked == [row["id"] for row in pick_failures(slow, 6, Random(rng_seed))]
        assert picked == [row["id"] for row in pick_failures(list(reversed(fast)), 6, Random(rng_seed))]


def test_pick_tolerates_rows_missing_fields():
    assert len(pick_failures([{"id": 1}, {"id": 2, "times_seen": None}], 2, Random(0))) == 2


@pytest.mark.parametrize("family", family_names())
def test_same_template_variant_keeps_structure_and_changes_numbers(family):
    for level in ("easy", "medium", "hard"):
        original = generate_task(family, level, 11)
        variant = same_template_variant(original, 500)
        assert (variant.family, variant.level) == (original.family, original.level)
        assert variant.metadata["template"] == original.metadata["template"]
        assert variant.metadata["params"] == original.metadata["params"]
        assert variant.prompt != original.prompt
        assert variant.metadata["repair_of"] == original.id
        if "expression" in variant.metadata:
            assert str(evaluate(variant.metadata["expression"])) == variant.answer


def test_same_template_variant_skips_a_seed_that_reproduces_the_original():
    original = generate_task("negation_arithmetic", "easy", 11)
    assert same_template_variant(original, 11).prompt != original.prompt


def test_contrastive_variant_quotes_the_wrong_answer():
    original = generate_task("negation_arithmetic", "easy", 5, template="add", operands=(3, 4))
    variant = contrastive_variant(original, "14", 9)
    assert "answered 14, which was wrong" in variant.prompt
    assert "what is 3 + 4?" in variant.prompt  # the earlier question, for contrast
    assert variant.answer != "14" and 14 in variant.metadata["distractors"]
    assert variant.metadata["repair_of"] == original.id and variant.metadata["contrastive"] is True
    assert variant.id != same_template_variant(original, 9).id
    assert variant.id == contrastive_variant(original, "14", 9).id
    assert "answer is" not in variant.hint.lower()


def test_contrastive_variant_avoids_an_answer_equal_to_the_quoted_one():
    original = generate_task("negated_comparison", "easy", 0, template="not_larger")
    for seed in range(30):
        wrong = same_template_variant(original, seed).answer
        assert contrastive_variant(original, wrong, seed).answer != wrong


def test_contrastive_variant_needs_a_wrong_answer_and_truncates_long_ones():
    original = generate_task("false_claim", "easy", 1)
    with pytest.raises(ValueError, match="wrong answer"):
        contrastive_variant(original, "  ", 2)
    long = contrastive_variant(original, "x" * 500, 2)
    assert "x" * 40 not in long.prompt and long.metadata["quoted_wrong_answer"].endswith("…")
