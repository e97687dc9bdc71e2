"""Hand-written prompt sets (eval --prompts): reading a user's file and scoring replies."""
import json

import pytest

from alice_app.cli import main
from alice_app.prompt_sets import MAX_PROMPT_CHARS, load_prompt_set, score_replies


def _write(path, *rows):
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return path


def test_optional_fields_get_defaults(tmp_path):
    rows = load_prompt_set(_write(tmp_path / "s.jsonl", {"prompt": "Add 3 and 7.", "answer": 10}, "",
                                  {"prompt": "Not 5: 2 + 2?", "answer": "4", "distractors": [5], "id": "x"}))
    assert rows == [{"id": "line-1", "prompt": "Add 3 and 7.", "answer": "10", "distractors": [], "idea": "all"},
                    {"id": "x", "prompt": "Not 5: 2 + 2?", "answer": "4", "distractors": ["5"], "idea": "all"}]


@pytest.mark.parametrize("lines, message", [
    (["{oops"], "line 1 is not JSON"),
    (['{"answer": 3}'], 'non-empty "prompt"'),
    (['["a list"]'], 'non-empty "prompt"'),
    (['{"prompt": "2 + 2?"}'], 'expected an "answer"'),
    (['{"prompt": "2 + 2?", "answer": true}'], 'expected an "answer"'),
    (['{"prompt": "2 + 2?", "answer": 4, "distractors": 5}'], '"distractors" must be a list'),
    ([json.dumps({"prompt": "x" * (MAX_PROMPT_CHARS + 1), "answer": 1})], "over 4,000 characters"),
    (['{"prompt": "a", "answer": 1, "id": "d"}', '{"prompt": "b", "answer": 2, "id": "d"}'], "'d' repeats"),
    ([""], "1 to 5,000 prompts, not 0"),
])
def test_a_bad_file_is_refused_with_its_line(tmp_path, lines, message):
    with pytest.raises(ValueError, match=message):
        load_prompt_set(_write(tmp_path / "s.jsonl", *lines))


def test_a_huge_file_is_not_read(tmp_path, monkeypatch):
    import alice_app.prompt_sets as prompt_sets

    monkeypatch.setattr(prompt_sets, "MAX_FILE_BYTES", 100)
    with pytest.raises(ValueError, match="is over 100 bytes; split it"):
        load_prompt_set(_write(tmp_path / "s.jsonl", *[{"prompt": "2 + 2?", "answer": 4}] * 10))


def test_a_bad_file_stops_eval_before_any_model_loads(tmp_path, capsys):
    assert main(["eval", "--prompts", str(tmp_path / "missing.jsonl")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_a_computation_left_as_the_answer_is_no_answer():
    rows = [{"id": "a", "prompt": "Add 3 and 7. Not 12.", "answer": "10", "distractors": ["12"], "idea": "all"}]
    assert score_replies(rows, ["Answer: 3 + 7"])["no_answer"] == 1.0
    assert score_replies(rows, ["3 + 7 = 10. Answer: 10"])["correct"] == 1.0
