from alice_app.challenger.novelty import NEAR_DUPLICATE, bleu, nearest, repetition_penalties, similarity, tokens


def test_identical_templates_are_fully_similar_and_unrelated_ones_are_not():
    t = "If the result is NOT {claim}, what is {a} + {b}?"
    assert similarity(t, t) == 1.0
    assert similarity(t, "Someone insists the total is {claim}. They are wrong. Add {a} and {b}.") < 0.3
    assert bleu([], tokens(t)) == 0.0


def test_slot_names_and_case_do_not_make_a_copy_look_new():
    a = "If the result is NOT {claim}, what is {a} + {b}?"
    b = "if the result is not {claim2}, what is {b} + {a}?"
    assert similarity(a, b) >= NEAR_DUPLICATE


def test_nearest_reports_the_closest_known_template():
    known = ["Ann says that {a} - {b} is {claim}. That is wrong. What is {a} - {b}?",
             "If the result is NOT {claim}, what is {a} + {b}?"]
    score, match = nearest("If the result is NOT {claim}, what is {a} + {b} then?", known)
    assert match == known[1] and score > 0.6
    assert nearest("x", []) == (0.0, None)


def test_repetition_penalty_grows_with_the_cluster_and_skips_invalid_members():
    same = "If the result is NOT {claim}, what is {a} + {b}?"
    other = "Someone insists the total is {claim}. They are wrong. Add {a} and {b}."
    penalties = repetition_penalties([same, same, same, other, None])
    assert penalties[0] == penalties[1] == penalties[2] > penalties[3] > 0
    assert penalties[4] == 0.0
