from alice_app.shortcuts import contradicts_own_result, echoes_prompt_number, last_computed, prompt_numbers


def test_prompt_numbers_in_order_without_repeats():
    assert prompt_numbers("If the result is NOT 14 and NOT 14, what is 3 + 4.5?") == ["14", "3", "4.5"]


def test_echo_only_counts_wrong_answers_taken_from_the_prompt():
    prompt = "Someone insists the total is 12. They are wrong. Add 3 and 7."
    assert echoes_prompt_number(prompt, "12", "10")
    assert echoes_prompt_number(prompt, "3", "10")
    assert not echoes_prompt_number(prompt, "10", "10")  # right
    assert not echoes_prompt_number(prompt, "19", "10")  # wrong, but computed
    assert not echoes_prompt_number(prompt, None, "10")


def test_contradiction_between_own_sum_and_final_answer():
    assert last_computed("6 + 6 = 12 The answer is 6") == "12"
    assert contradicts_own_result("6 + 6 = 12 The answer is 6", "6")
    assert not contradicts_own_result("6 + 6 = 12\nAnswer: 12", "12")
    assert not contradicts_own_result("The answer is 6", "6")  # nothing computed: no contradiction
    assert last_computed("First 2 × 3 = 6, then 6 + 1 = 7.") == "7"
    assert not contradicts_own_result("12 + 7 = 19. Answer: 19", "19")  # wrong operands, but consistent


def test_a_rewrite_step_is_not_a_result():
    worked = "1 + 8 × 5 = 1 + 40\n1 + 40 = 41\nAnswer: 41"
    assert last_computed(worked) == "41" and not contradicts_own_result(worked, "41")
    assert last_computed("1 + 8 × 5 = 1 + 40") is None  # cut off mid-working: nothing computed yet
    assert last_computed("2 × -2 + 1 = -4 + 1") is None and last_computed("12 - 3 = 9.5 + 2") is None
    assert last_computed("1 + 8 × 5 = 1 + 40\n1 + 40 = 14. Answer: 41") == "14"  # a slip is still seen


def test_a_computation_with_the_questions_own_operands_is_told_from_one_with_a_distractor():
    from alice_app.shortcuts import computed_operands, computes_with

    assert computes_with("3 + 7 = 10\nAnswer: 10", [3, 7]) and computes_with("7+3=11", [3, 7])  # wrong sums count too
    assert not computes_with("12 + 7 = 19\nAnswer: 19", [3, 7])  # the distractor used as an operand
    assert not computes_with("3 + 7 + 12 = 22", [3, 7]) and not computes_with("Answer: 10", [3, 7])
    assert not computes_with("It is 3 + 7, which is 10", [3, 7])  # no computation written out
    assert computed_operands("(2 + 3) × 4 = 20, then 9-3 = 6") == [["2", "3", "4"], ["9", "3"]]
