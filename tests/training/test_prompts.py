from alice_app.tasks import generate_task
from alice_app.tasks._common import ANSWER_FORMAT
from alice_app.training.prompts import task_messages, training_messages


def test_a_share_of_training_prompts_lose_the_format_line_deterministically():
    tasks = [generate_task("negation_arithmetic", "easy", seed) for seed in range(400)]
    build = training_messages(0.25)
    stripped = [t for t in tasks if ANSWER_FORMAT not in build(t)[-1]["content"]]
    assert 60 <= len(stripped) <= 140
    assert all(build(t) == build(t) for t in tasks[:20])
    assert all(training_messages(0.0)(t) == task_messages(t) for t in tasks[:20])
    assert all(ANSWER_FORMAT not in training_messages(1.0)(t)[-1]["content"] for t in tasks[:20])
