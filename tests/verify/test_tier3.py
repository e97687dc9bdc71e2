import pytest

from alice_app.verify.tier3 import consistency


def test_agreeing_samples_are_fully_confident(task):
    result = consistency(task, ["10", "Answer: 10", "ten", "10.0"])
    assert (result.entropy, result.confidence, result.majority, result.pass_rate) == (0.0, 1.0, "10", 1.0)
    assert not result.unstable


def test_all_different_samples_have_no_confidence(task):
    result = consistency(task, ["1", "2", "3", "10"])
    assert result.entropy == 2.0 and result.confidence == 0.0 and result.pass_rate == 0.25
    assert result.unstable  # right once, by luck


def test_consistently_wrong_is_confident_but_not_unstable(task):
    result = consistency(task, ["14", "14", "14"])
    assert result.confidence == 1.0 and result.pass_rate == 0.0 and not result.unstable


def test_missing_answers_count_as_one_outcome(task):
    result = consistency(task, [None, "no idea", "hmm", "10"])
    assert result.majority is None and result.pass_rate == 0.25
    assert result.entropy == pytest.approx(0.811278)  # {no answer: 3, "10": 1}


def test_text_answers_keep_their_text(make_task):
    result = consistency(make_task(answer="True"), ["True", "true", "False"])
    assert result.majority == "true" and result.pass_rate == pytest.approx(2 / 3)


def test_single_sample(task):
    assert consistency(task, ["10"]).confidence == 1.0


def test_no_samples_is_an_error(task):
    with pytest.raises(ValueError, match="at least one"):
        consistency(task, [])
