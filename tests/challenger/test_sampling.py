from alice_app.challenger.family import SEED_TEMPLATES, fill
from alice_app.challenger.sampling import with_confidence
from alice_app.hunt import EpisodeResult


class Samples:
    """Unit-test stand-in: k sampled answers fixed in advance."""

    model_id = "fixed"

    def __init__(self, answers):
        self.answers = answers

    def generate(self, chats, n=1, temperature=0.0, max_tokens=64):
        return [self.answers[:n] for _ in chats]


def test_a_right_but_unstable_first_attempt_is_banked_as_unstable(settings):
    from alice_app.services import Services

    services = Services.from_settings(settings)
    task = fill(SEED_TEMPLATES[0], 3)
    result = EpisodeResult(task=task, solved=True, turns=1, first_attempt_correct=True, failure_mode=None,
                           failure_id=None, first_response=f"Answer: {task.answer}")
    spread = [f"Answer: {task.answer}", "Answer: 1", "Answer: 2", "Answer: 3", "Answer: 4"]
    [checked] = list(with_confidence([result], Samples(spread), services, k=5))
    assert checked.unstable and checked.confidence < 0.5
    row = services.bank.query(page_size=5).rows[0]
    assert row["mode"] == "unstable" and row["task_id"] == task.id
    steady = [f"Answer: {task.answer}"] * 5
    [calm] = list(with_confidence([result], Samples(steady), services, k=5))
    assert not calm.unstable and calm.confidence == 1.0
    assert services.bank.query(page_size=5).total == 1
    services.close()


def test_a_hunt_refuses_fewer_than_one_sample(settings):
    import pytest

    from alice_app.hunt import run_hunt
    from alice_app.services import Services

    services = Services.from_settings(settings)
    with pytest.raises(ValueError, match="--samples must be at least 1"):
        run_hunt(Samples([]), services, 1, samples=0)
    services.close()


def test_sampled_answers_give_an_environment_turn_its_tier3_verdict(settings):
    from alice_app.services import Services

    services = Services.from_settings(settings)
    task = fill(SEED_TEMPLATES[2], 5)
    services.use_policy(Samples([f"Answer: {task.answer}", "Answer: 0", "Answer: 1", "Answer: 2"]))
    env = services.new_environment()
    obs = env.reset(task=task)
    samples = services.sample_answers(obs.messages, k=4)
    assert len(samples) == 4
    verdict = env.step(f"Answer: {task.answer}", samples=samples).verdict
    assert verdict["is_correct"] and verdict["tier"] == 3 and verdict["details"]["unstable"]
    assert verdict["details"]["consistency"]["samples"] == 4 and verdict["confidence"] < 0.5
    assert [row["mode"] for row in services.bank.query(page_size=5).rows] == ["unstable"]
    services.close()
