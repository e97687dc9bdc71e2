from fractions import Fraction

import pytest

from alice_app.numbers import normalise, plain_number, to_fraction, words_to_fraction


@pytest.mark.parametrize("text, expected", [
    ("7", "7"), ("7.0", "7"), ("-3", "-3"), ("−3", "-3"), ("+7", "7"), ("3/4", "3/4"), ("6/8", "3/4"),
    ("14/2", "7"), ("0.50", "0.5"), ("1,000", "1000"), ("seven", "7"), ("Twenty-one", "21"),
    ("minus three", "-3"), ("one hundred and five", "105"), ("two thousand three hundred", "2300"),
    ("12345678901234567890123456789.5", "12345678901234567890123456789.5"),
])
def test_normalise_reads_numerals_and_words(text, expected):
    assert normalise(text) == expected


@pytest.mark.parametrize("text", ["", "3/0", "1e5", "1e999999999", "abc", "3,8,5", "1" * 100, "seven apples"])
def test_normalise_refuses_what_is_not_one_number(text):
    assert normalise(text) is None


def test_words_are_exact():
    assert words_to_fraction("ninety nine") == Fraction(99)
    assert words_to_fraction("a dozen") is None
    assert to_fraction("0.1") == Fraction(1, 10)  # exact, no float rounding


@pytest.mark.parametrize("text, expected", [("7", "7"), (" (7). ", "7"), ("-3\n", "-3"), ("7 apples", None)])
def test_plain_number_is_the_whole_text(text, expected):
    assert plain_number(text) == expected


@pytest.mark.parametrize("text", ["seven seven", "three twenty", "twenty ten", "thousand"])
def test_number_words_in_the_wrong_order_are_not_summed(text):
    assert words_to_fraction(text) is None


def test_large_number_words():
    assert words_to_fraction("one million two hundred thousand") == 1_200_000
