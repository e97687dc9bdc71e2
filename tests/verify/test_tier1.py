import threading

import pytest

from alice_app.tasks import generate_task
from alice_app.verify.tier1 import answers_equal, check, extract_answer, locate_answer


@pytest.mark.parametrize("text, expected", [
    ("Answer: 7", "7"), ("**7**", "7"), ("7.0", "7"), ("seven", "7"), ("-3", "-3"), ("3/4", "3/4"),
    ("The answer is 7. Hope this helps!", "7"), ("\\boxed{7}", "7"), ("Answer: −3", "-3"),
    ("1, 2, Answer: 3 and then 5, Answer: 9 in the end", "9"),  # the last "Answer:" wins
    ("Answer: 12\nBecause 5 + 7 = 12 and not 14.", "12"),  # an answer followed by trailing text
    ("The answer is not 14, it is 7", "7"),  # "answer is not X" names what the answer is not
    ("Answer: **seven**", "7"), ("The answer is twenty-one.", "21"), ("Answer:\n\n 12", "12"),
    ("x\x00\x01 Answer: 5\x7f", "5"), ("So the answer is $\\frac{6}{8}$.", "3/4"),
    ("Final answer: \\boxed{\\frac{1}{2}}", "1/2"), ("\\boxed{\\sqrt{4}}", "2"),
    ("Answer: 3 + 4 = 7", "7"), ("Answer: 7 - 3", "4"), ("Answer: (3 + 4) × 2", "14"),
    ("Answer: 8. Note that 3 + 4 = 7", "8"), ("I believe the answer is 1,000 apples", "1000"),
    ("I think 3 and 4 make 7, right?", "7"), ("Answer: 0.50", "0.5"),
])
def test_extract_answer(text, expected):
    assert extract_answer(text) == expected


@pytest.mark.parametrize("text", ["", "blah", "one of them", "none", "Answer: 1/0", None, 42])
def test_extract_answer_finds_nothing(text):
    assert extract_answer(text) is None


@pytest.mark.parametrize("text", ["Answer: 2^{2^{64}}", "Answer: 9^9^9^9", "Answer: 2**2**100"])
def test_huge_powers_stay_symbolic_instead_of_hanging(text):
    answer = extract_answer(text)
    assert answer is not None and "**" in answer  # not evaluated


def test_answer_stated_early_in_a_very_long_reply():
    assert extract_answer("Answer: 7\n" + "z" * 1_000_000) == "7"


@pytest.mark.parametrize("text", ["Answer: 10 or 11", "Answer: 10, 11, 12", "Answer: 10 (or 11)", "Answer: 9 to 10",
                                  "Answer: 10 and 11.", "The answer is 9 or maybe 10", "Answer: 11\nAnswer: 10 or 11",
                                  "Answer: 10 11 12", "Answer: 10 | 11", "Answer: 10 ± 1", "Answer: ±10",
                                  "Answer: 10, or 11", "Answer: $10$ or $11$", "Answer: ten or eleven",
                                  "Answer: [10, 11]", "Answer: {10, 11}", "Answer: 10 — or 11",
                                  "Answer: at least 10", "Answer: between 9 and 11", "Answer: 10 or more",
                                  "Answer: more than 9", "Answer: up to 10", "Answer: 10 or fewer",
                                  "Answer: 10. Wait, no: 11.", "Answer: 10 <- wrong, actually 11",
                                  "Answer: 10. Actually eleven.", "Answer: 10\nActually no, it is 11.",
                                  "Answer: 10\nHmm, or maybe 11", "Answer: 10\nNo, wait: 11", "Answer: 10\n\nOr 11",
                                  "Answer: 10 but it could be 11", "Answer: 10. Maybe 11.", "Answer: 10 ... or 11",
                                  "Answer: 10 & 11", "Answer: 10, or rather 11", "Answer: 10 … 11",
                                  "Answer: either 10 or 11", "Answer: maybe 10", "Answer: perhaps 10"])
def test_a_hedged_answer_line_is_decided_wrong_whichever_value_is_right(task, text):
    assert locate_answer(text) == (None, "hedged")
    verdict = check(task, text)
    assert verdict.decided and not verdict.is_correct and "more than one value" in verdict.reason


@pytest.mark.parametrize("text, expected", [
    ("Answer: 10, because 3 + 7 = 10", "10"),  # a reason after the answer is not a hedge
    ("Answer: 10, 12 is the claim", "10"),  # nor a number that a sentence goes on about
    ("Answer: 10 or 11\nOn reflection, Answer: 10", "10"),  # only the last answer line counts
    ("It is 10 or 11.", "11"),  # no answer line: the last number stays a guess (left to the oracle)
    ("Answer: 10 (3 + 7)", "10"), ("Answer: 10 apples", "10"), ("Answer: 10, and 3 + 7 = 10 checks out", "10"),
    ("Answer: 10 (approximately)", "10"),
    ("Answer: 10, 10", "10"), ("Answer: 10 10", "10"),  # one value said twice
    ("Answer: 10. Actually, 3 + 7 = 10 confirms it.", "10"),  # a check after the answer, not a retraction
    ("Answer: 10 (actually 3 + 7)", "10"), ("Answer: 10. Wait, it is not 11.", "10"),
    ("Answer: 10\nActually, 3 + 7 = 10", "10"), ("Answer: 10\nNo distractor was used; 14 was ignored.", "10"),
    ("Answer: 10\nOrder matters: 3 + 7", "10"), ("Answer: 10\nWell, the result is NOT 14.", "10"),
])
def test_what_is_not_a_hedge(text, expected):
    assert extract_answer(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("Answer: not 10", None), ("The result isn't 10.", None), ("It is not equal to 14", None),
    ("The result isn't 14.\n10", "10"), ("The answer is not obvious. 3 + 7 = 10", "10"),
    # the negation inside a contraction or a modal: "won't be 14" (the paraphrase set's p03 was read as 2)
    ("9 - 3 = 6 The difference won't be 2.", "6"), ("3 + 7 = 10. It can't be 14.", "10"),
    ("3 + 7 = 10. It cannot be 14.", "10"), ("10. It is never 14.", "10"), ("10. It wouldn’t be 14.", "10"),
    ("10. It isn’t 14", "10"), ("The answer won't be 14.", None), ("It won't be 14. It is 13.", "13"),
    ("It's 9, rather than 14.", "9"), ("9 instead of 14", "9"), ("The result is nine, not ten.", "9"),
    ("Result = 9 ≠ 10", "9"), ("9 != 10", "9"), ("Answer: 10 != 14", "10"),
    # a number the reply then calls wrong
    ("9 is correct; 14 is wrong.", "9"), ("The sum is 9 (the claim of 14 is false).", "9"),
    ("The total is 9. Someone said 14, which is wrong.", "9"), ("I get 9. The claim of 10 is false.", "9"),
    ("14 is not the answer; 9 is.", "9"), ("14 is wrong.", None),
    ("No number other than 7 fits.", "7"),  # "other than" does not negate: here it names the answer
])
def test_a_number_the_reply_only_negates_is_never_its_answer(text, expected):
    assert extract_answer(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("Answer: 2e3", "2000"), ("Answer: 2.5e1", "25"), ("Answer: 1e999", "1e999"),  # never the number 1
    ("Answer: -(-9)", "9"), ("Answer: -(3 - 10)", "7"),
    ("Answer: minus 3", "-3"), ("Answer: negative 12", "-12"), ("The answer is minus 3.", "-3"),  # never 3
    ("Answer: either way, it is 12", "12"),
])
def test_scientific_notation_and_a_leading_minus_are_read_whole(text, expected):
    assert extract_answer(text) == expected


@pytest.mark.parametrize("text", ["Answer: 7 + 3", "Answer: (7 + 3)", "Answer: 11 - 1", "Answer: 2 × 5",
                                  "Answer: -(-10)", "The answer is 5 × 2", "Answer: 7+3."])
def test_a_computation_left_as_the_answer_is_decided_wrong(task, text):
    # The prompt's own expression copied onto the answer line would otherwise earn the full reward.
    assert locate_answer(text)[1] == "unevaluated"
    verdict = check(task, text)
    assert verdict.decided and not verdict.is_correct and verdict.extracted is None


@pytest.mark.parametrize("text", ["Answer: 7 + 3 = 10", "Answer: (10)", "Answer: 10 (7 + 3)", "Answer: 20/2"])
def test_a_computation_carried_to_its_value_is_an_answer(task, text):
    assert check(task, text).is_correct


def test_method_says_how_sure_the_extraction_is():
    assert locate_answer("7")[1] == "plain"
    assert locate_answer("Answer: 7")[1] == "marker"
    assert locate_answer("I think 3 and 4 make 7")[1] == "last_number"


@pytest.mark.parametrize("a, b", [("7", "7.0"), ("7", "14/2"), ("seven", "7"), ("0.5", "1/2"), ("Yes", "yes.")])
def test_answers_equal(a, b):
    assert answers_equal(a, b) and answers_equal(b, a)


@pytest.mark.parametrize("a, b", [("7", "8"), ("7", ""), ("", ""), ("7", None), ("3/4", "0.74")])
def test_answers_differ(a, b):
    assert not answers_equal(a, b)


def test_check_decides_plain_numbers(task):
    assert check(task, "Answer: 10").is_correct
    wrong = check(task, "Answer: 14")
    assert wrong.decided and not wrong.is_correct and wrong.extracted == "14"


def test_check_leaves_no_answer_and_symbolic_forms_undecided(task):
    assert not check(task, "I am not sure").decided
    symbolic = check(task, "Answer: \\sqrt{2}")
    assert not symbolic.decided and symbolic.extracted == "sqrt(2)"


def test_check_proves_equivalent_forms_with_math_verify(make_task):
    result = check(make_task(answer="2"), "Answer: \\sqrt{4}")
    assert result.decided and result.is_correct


def test_check_text_answers(make_task):
    task = make_task(answer="True")
    assert check(task, "Answer: true").is_correct
    assert not check(task, "Answer: False").decided  # an equivalent wording needs the oracle


def test_reasoning_gym_family_is_scored_by_its_own_scorer():
    task = generate_task("rg_basic_arithmetic", "easy", 3)
    right = check(task, f"Let me compute.\nAnswer: {task.answer}")
    assert right.decided and right.is_correct and right.method == "scorer" and right.score == 1.0
    wrong = check(task, f"Answer: {int(task.answer) + 1}")
    assert wrong.decided and not wrong.is_correct


def test_a_failing_scorer_leaves_tier1_undecided(task):
    def broken(task, response):
        raise RuntimeError("boom")

    result = check(task, "Answer: 10", scorer=broken)
    assert not result.decided and "boom" in result.reason


def test_check_works_outside_the_main_thread(make_task):
    # math-verify's own timeout uses signal.alarm, which fails in threads; ours must not.
    results = []
    worker = threading.Thread(target=lambda: results.append(check(make_task(answer="3/4"), "$\\frac{3}{4}$")))
    worker.start()
    worker.join(30)
    assert results and results[0].is_correct


def test_a_long_stated_chain_is_left_symbolic():
    chain = "^".join(["9"] * 100)
    assert extract_answer(f"Answer: {chain}") == chain  # math-verify would read it as 9


def test_only_the_last_markers_are_tried():
    # thousands of empty markers before the real one: bounded work, and the last one still wins
    assert extract_answer("answer: " * 3000 + "Answer: 7") == "7"
    assert extract_answer("Answer: 7 " + "answer: " * 3000) is None  # buried under 3000 markers
