"""Episode tab handlers against real Services (temporary SQLite file, real environment and verifier)."""
from types import SimpleNamespace

import pytest

from alice_app.ui import episode

OUT = SimpleNamespace(**{name: i for i, name in enumerate(episode.OUTPUT_NAMES)})


def play(services, session, text):
    return episode.answer(services, session, text)


def test_reset_options():
    assert episode.reset_options("negation_arithmetic", "hard", 7, episode.CHOSEN) == {
        "seed": 7, "family": "negation_arithmetic", "level": "hard", "mode": "hunt"}
    assert episode.reset_options(None, None, None, "next from curriculum: repair") == {"seed": None, "mode": "repair"}
    with pytest.raises(ValueError, match="Pick a family"):
        episode.reset_options(None, "easy", 1, episode.CHOSEN)


def test_new_episode_shows_the_task(services):
    out = episode.new_episode(services, None, "negation_arithmetic", "easy", 5, episode.CHOSEN)
    session, task_md = out[OUT.session], out[OUT.task]
    assert session.observation is not None and "negation_arithmetic" in task_md
    assert session.observation.prompt.splitlines()[0] in task_md and "turn 1 of 5" in task_md


def test_correct_answer_solves_at_turn_one(services):
    session = episode.new_episode(services, None, "negation_arithmetic", "easy", 5, episode.CHOSEN)[OUT.session]
    answer = session.env.state["task"]["answer"]
    out = play(services, session, f"Answer: {answer}")
    assert "✓ correct" in out[OUT.verdict] and "Solved" in out[OUT.status]
    assert out[OUT.history][0][4] == "✓" and "Reward" in out[OUT.reward]
    assert "over" in play(services, session, "Answer: 1")[OUT.status]  # a finished episode takes no more answers


def test_five_wrong_answers_end_the_episode_and_bank_it(services):
    session = episode.new_episode(services, None, "negation_arithmetic", "easy", 11, episode.CHOSEN)[OUT.session]
    wrong = f"Answer: {int(session.env.state['task']['answer']) + 1000}"
    for turn in range(1, 6):
        out = play(services, session, wrong)
        assert len(out[OUT.history]) == turn and "✗ wrong" in out[OUT.verdict]
    assert "Not solved after 5 turns" in out[OUT.status]
    assert services.bank.query(family="negation_arithmetic").total == 1  # banked by the environment


def test_guidance_shows_hint_before_turn_four(services):
    session = episode.new_episode(services, None, "negation_arithmetic", "easy", 12, episode.CHOSEN)[OUT.session]
    for _ in range(3):
        out = play(services, session, "Answer: 99999")
    assert "Next: hint" in out[OUT.guidance] and session.env.state["task"]["hint"] in out[OUT.guidance]


def test_answer_needs_an_episode_and_text(services):
    assert "Start an episode" in play(services, None, "Answer: 3")[OUT.status]
    session = episode.new_episode(services, None, "negation_arithmetic", "easy", 5, episode.CHOSEN)[OUT.session]
    assert "Type an answer" in play(services, session, "   ")[OUT.status]
    assert session.env.state["history"] == []  # nothing was recorded


def test_bad_form_keeps_the_current_episode(services):
    session = episode.new_episode(services, None, "negation_arithmetic", "easy", 5, episode.CHOSEN)[OUT.session]
    out = episode.new_episode(services, session, None, "easy", 5, episode.CHOSEN)
    assert "Pick a family" in out[OUT.status] and out[OUT.session] is session
    assert "negation_arithmetic" in out[OUT.task]


def test_manual_banking(services):
    session = episode.new_episode(services, None, "false_claim", "easy", 3, episode.CHOSEN)[OUT.session]
    assert "Nothing to bank" in episode.bank_episode(services, session)[OUT.status]
    play(services, session, "Answer: 99999")
    status = episode.bank_episode(services, session)[OUT.status]
    failure_id = int(status.rsplit("#", 1)[1].rstrip("."))
    assert services.bank.get(failure_id)["source"] == "manual"


def test_sessions_are_independent(services):
    first = episode.new_episode(services, None, "negation_arithmetic", "easy", 1, episode.CHOSEN)[OUT.session]
    second = episode.new_episode(services, None, "false_claim", "medium", 2, episode.CHOSEN)[OUT.session]
    play(services, first, "Answer: 99999")
    assert first.env is not second.env and second.env.state["history"] == []
    assert second.env.state["task"]["family"] == "false_claim"


def test_model_answer_reports_a_broken_policy_without_losing_the_episode(services, monkeypatch):
    class BrokenPolicy:
        def generate(self, *args, **kwargs):
            raise RuntimeError("model file missing")

    monkeypatch.setattr(type(services), "policy", property(lambda self: BrokenPolicy()), raising=False)
    session = episode.new_episode(services, None, "negation_arithmetic", "easy", 5, episode.CHOSEN)[OUT.session]
    steps = list(episode.model_answer(services, session))
    assert "answering" in steps[0][OUT.status] and "model file missing" in steps[-1][OUT.status]
    assert session.env.state["history"] == []


def test_model_answer_streams_the_text_then_judges_the_whole_answer(services, monkeypatch):
    class StreamingPolicy:
        def stream(self, messages, max_tokens=64):
            yield from ("Answer", "Answer: 1", "Answer: 14")

    monkeypatch.setattr(type(services), "policy", property(lambda self: StreamingPolicy()), raising=False)
    session = episode.new_episode(services, None, "negation_arithmetic", "easy", 5, episode.CHOSEN)[OUT.session]
    steps = list(episode.model_answer(services, session))
    assert [step[OUT.status] for step in steps[1:4]] == [
        "The model is answering: Answer▌", "The model is answering: Answer: 1▌", "The model is answering: Answer: 14▌"]
    assert "Model answered: Answer: 14" in steps[-1][OUT.status]
    assert [turn["response"] for turn in session.env.state["history"]] == ["Answer: 14"]


@pytest.mark.slow
def test_model_answer_with_the_embedded_model(services):
    session = episode.new_episode(services, None, "negation_arithmetic", "easy", 5, episode.CHOSEN)[OUT.session]
    steps = list(episode.model_answer(services, session))
    assert len(steps) >= 3 and "Model answered" in steps[-1][OUT.status]  # streamed: several partial steps
    assert len(session.env.state["history"]) == 1
