"""bench/hunt_failures.py: a hunt's turn-1 failures per family, from a raw (fast)."""
import json

import pytest


@pytest.fixture
def bench(load_script):
    return load_script("bench/hunt_failures.py")


def test_failures_are_counted_per_family_over_the_seeds(bench, tmp_path, capsys):
    hunt = lambda *firsts: {"hunt": {"episodes": [{"task_id": f"{family}/easy/{i}", "first": first}  # noqa: E731
                                                  for i, (family, first) in enumerate(firsts)]}}
    raw = {"runs": {"0": {"alice": {"warm_start": hunt(("exclusion_counting", False), ("false_claim", True))}},
                    "1": {"alice": {"warm_start": hunt(("exclusion_counting", False), ("false_claim", False))}}}}
    path = tmp_path / "raw.json"
    path.write_text(json.dumps(raw))
    assert bench.main([f"{path}:alice", "--hunt", "warm_start"]) == 0
    out = capsys.readouterr().out
    assert "3 of 4 failed at turn 1" in out and "exclusion_counting: 2 of 2" in out and "false_claim: 1 of 2" in out
    with pytest.raises(SystemExit):
        bench.main([f"{path}:alice", "--hunt", "before"])  # no such hunt in that raw
    assert "no before hunt" in capsys.readouterr().err
