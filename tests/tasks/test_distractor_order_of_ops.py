from alice_app.tasks import generate_task


def test_answer_uses_precedence_and_quotes_the_left_to_right_result():
    task = generate_task("distractor_order_of_ops", "easy", 0, template="mixed", operands=(2, 3, 4))
    assert task.answer == "14"
    assert task.metadata["distractors"] == [20]  # (2 + 3) × 4: working strictly left to right
    assert "got 20." in task.prompt


def test_parentheses_are_honoured_and_wrong_orders_quoted():
    task = generate_task("distractor_order_of_ops", "hard", 0, template="nested", operands=(2, 3, 7, 4),
                         distractors=2)
    assert task.answer == "15"  # (2 + 3) × (7 - 4)
    assert task.metadata["distractors"] == [31, 19]  # left to right; parentheses dropped
    assert "usual order of operations" in task.prompt


def test_left_to_right_correct_shapes_still_get_a_wrong_distractor():
    task = generate_task("distractor_order_of_ops", "easy", 0, template="mul_add", operands=(3, 4, 5))
    assert task.answer == "17" and task.metadata["distractors"] == [27]  # 3 × (4 + 5)
