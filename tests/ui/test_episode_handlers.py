"""Episode tab handlers against real Services (temporary SQLite file, real environment and verifier)."""
from types import SimpleNamespace

import pytest

from alice_app.ui import bank, episode

OUT = SimpleNamespace(**{name: i for i, name in enumerate(episode.OUTPUT_NAMES)})


def play(services, session, text):
    return episode.answer(services, session, text)


def test_reset_options():
    assert episode.reset_options("negation_arithmetic", "hard", 7, episode.CHOSEN) == {
        "seed": 7, "family": "negation_arithmetic", "level": "hard", "mode": "hunt", "wording": "template"}
    assert episode.reset_options(None, None, None, "next from curriculum: repair") == {
        "seed": None, "mode": "repair", "wording": "template"}
    free = episode.reset_options("false_claim", "easy", 7, episode.CHOSEN, "free (composed from many frames)")
    assert free["wording"] == "free" and episode.reset_options("false_claim", "easy", 7, episode.CHOSEN, "free")["wording"] == "free"
    with pytest.raises(ValueError, match="Pick a family"):
        episode.reset_options(None, "easy", 1, episode.CHOSEN)


def test_new_episode_shows_the_task(services):
    out = episode.new_episode(services, None, "negation_arithmetic", "easy", 5, episode.CHOSEN)
    session, task_md = out[OUT.session], out[OUT.task]
    assert session.observation is not None and "negation_arithmetic" in task_md
    assert "turn 1 of 5" in task_md
    chat = out[OUT.chat]
    assert len(chat) == 1 and session.observation.prompt.splitlines()[0] in chat[0]["content"]


def test_a_free_wording_asks_the_same_task_in_other_words_and_is_refused_where_there_is_none(services):
    from alice_app.tasks import generate_task

    out = episode.new_episode(services, None, "false_claim", "easy", 5, episode.CHOSEN, "free (composed from many frames)")
    asked = out[OUT.session].observation.prompt
    assert asked == generate_task("false_claim", "easy", 5, wording="free").prompt != generate_task("false_claim", "easy", 5).prompt
    refused = episode.new_episode(services, None, "rg_basic_arithmetic", "easy", 5, episode.CHOSEN, "free")
    assert "rg_basic_arithmetic has no free wording" in refused[OUT.status]


def test_correct_answer_solves_at_turn_one(services):
    session = episode.new_episode(services, None, "negation_arithmetic", "easy", 5, episode.CHOSEN)[OUT.session]
    answer = session.env.state["task"]["answer"]
    out = play(services, session, f"Answer: {answer}")
    assert "Solved" in out[OUT.status] and out[OUT.answer_box] == ""
    assert "✓ correct" in out[OUT.chat][1]["content"] and "Solved at turn 1" in out[OUT.chat][-1]["content"]
    assert "over" in play(services, session, "Answer: 1")[OUT.status]  # a finished episode takes no more answers


def test_five_wrong_answers_end_the_episode_and_bank_it(services):
    session = episode.new_episode(services, None, "negation_arithmetic", "easy", 11, episode.CHOSEN)[OUT.session]
    wrong = f"Answer: {int(session.env.state['task']['answer']) + 1000}"
    for turn in range(1, 6):
        out = play(services, session, wrong)
        answers = [m for m in out[OUT.chat] if m["role"] == "assistant"]
        assert len(answers) == turn and "✗ wrong" in answers[-1]["content"]
        assert f"turn {turn + 1} of 5" in out[OUT.task] or turn == 5
    assert "Not solved after 5 turns" in out[OUT.status] and "finished" in out[OUT.task]
    page = services.bank.query(family="negation_arithmetic")
    assert page.total == 1 and page.rows[0]["source"] == "manual"  # bug 7: hand-played is not "hunt"


def test_the_running_total_sums_the_turn_rewards(services):
    session = episode.new_episode(services, None, "negation_arithmetic", "easy", 12, episode.CHOSEN)[OUT.session]
    for _ in range(2):
        out = play(services, session, "Answer: 99999")
    total = sum(session.env.state["rewards"])
    assert f"episode total **{total:+.3f}**" in out[OUT.task]


def test_a_seed_beyond_the_sqlite_range_is_refused_with_the_bound(services):  # bug 1
    for seed in ("9223372036854775808", "18446744073709551616", "-1", "1e5", "７"):
        out = episode.new_episode(services, None, "negation_arithmetic", "easy", seed, episode.CHOSEN)
        assert out[OUT.status].startswith("⚠ Seed") and "9223372036854775807" in out[OUT.status]
        assert out[OUT.session] is None
    out = episode.new_episode(services, None, "negation_arithmetic", "easy", "9223372036854775807", episode.CHOSEN)
    assert out[OUT.session].env.state["task"]["seed"] == 2**63 - 1
    for _ in range(5):  # the largest seed plays to the end and is banked (it was lost at 2^63)
        out = play(services, out[OUT.session], "Answer: 99999")
    assert services.bank.query().rows[0]["seed"] == 2**63 - 1


def test_a_failure_is_labelled_by_its_unaided_first_attempt(services):  # bug 9
    session = episode.new_episode(services, None, "negation_arithmetic", "easy", 3, episode.CHOSEN)[OUT.session]
    task = session.env.state["task"]
    distractor = task["metadata"]["distractors"][0]
    out = play(services, session, f"Answer: {distractor}")
    for _ in range(4):
        out = play(services, session, "Answer: 99999")
    row = services.bank.get(session.env.state["failure_id"])
    assert row["mode"] == "distractor_echo" and row["response"] == f"Answer: {distractor}"
    badges = [m["content"] for m in out[OUT.chat] if m["role"] == "assistant"]
    assert "mode `distractor_echo`" in badges[0] and all("mode `distractor_echo`" not in b for b in badges[1:])
    detail = bank.open_failure(services, row["id"])[0]  # the bank's history shows each turn's mode too
    assert "1. attempt · ✗ `distractor_echo`" in detail and "2. feedback · ✗ `other`" in detail


def test_answer_needs_an_episode_and_text(services):
    assert "Start an episode" in play(services, None, "Answer: 3")[OUT.status]
    session = episode.new_episode(services, None, "negation_arithmetic", "easy", 5, episode.CHOSEN)[OUT.session]
    assert "Type an answer" in play(services, session, "   ")[OUT.status]
    assert session.env.state["history"] == []  # nothing was recorded


def test_the_box_is_emptied_with_the_judged_answer(services):  # bug 8: Enter then Submit played twice
    session = episode.new_episode(services, None, "negation_arithmetic", "easy", 5, episode.CHOSEN)[OUT.session]
    out = play(services, session, "Answer: 99999")
    assert out[OUT.answer_box] == ""  # the same update that shows turn 1 empties the box
    again = play(services, session, out[OUT.answer_box])
    assert "Type an answer" in again[OUT.status] and len(session.env.state["history"]) == 1


def test_bad_form_keeps_the_current_episode(services):
    session = episode.new_episode(services, None, "negation_arithmetic", "easy", 5, episode.CHOSEN)[OUT.session]
    out = episode.new_episode(services, session, None, "easy", 5, episode.CHOSEN)
    assert "Pick a family" in out[OUT.status] and out[OUT.session] is session
    assert "negation_arithmetic" in out[OUT.task]


def test_manual_banking_of_a_solved_episode_with_a_wrong_start(services):
    session = episode.new_episode(services, None, "false_claim", "easy", 3, episode.CHOSEN)[OUT.session]
    assert "Nothing to bank" in episode.bank_episode(services, session)[OUT.status]
    play(services, session, "Answer: 99999")
    assert "Finish the episode" in episode.bank_episode(services, session)[OUT.status]
    play(services, session, f"Answer: {session.env.state['task']['answer']}")
    status = episode.bank_episode(services, session)[OUT.status]
    failure_id = int(status.rsplit("#", 1)[1].rstrip("."))
    row = services.bank.get(failure_id)
    assert row["source"] == "manual" and row["response"] == "Answer: 99999" and len(row["history"]) == 2
    assert "already in the failure bank as failure #" in episode.bank_episode(services, session)[OUT.status]
    assert services.bank.get(failure_id)["times_seen"] == 1


def test_banking_an_episode_the_environment_banked_adds_nothing(services):  # bug 4
    session = episode.new_episode(services, None, "negation_arithmetic", "easy", 8, episode.CHOSEN)[OUT.session]
    for _ in range(5):
        play(services, session, "Answer: 99999")
    banked = session.env.state["failure_id"]
    status = episode.bank_episode(services, session)[OUT.status]
    assert status == f"This episode is already in the failure bank as failure #{banked}."
    assert services.bank.get(banked)["times_seen"] == 1 and services.bank.query().total == 1


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


def test_auto_play_lets_the_model_play_every_turn(services, monkeypatch):
    class FixedPolicy:
        def generate(self, batch, n=1, temperature=0.0, max_tokens=64):
            return [["Answer: 99999"]]

    monkeypatch.setattr(type(services), "policy", property(lambda self: FixedPolicy()), raising=False)
    session = episode.new_episode(services, None, "negation_arithmetic", "easy", 5, episode.CHOSEN)[OUT.session]
    steps = list(episode.auto_play(services, session))
    assert len(session.env.state["history"]) == 5 and "Not solved" in steps[-1][OUT.status]
    assert "the model (" in steps[-1][OUT.task]


def test_model_answer_with_k_samples_shows_the_confidence_and_banks_an_unstable_answer(services, monkeypatch):
    from alice_app.tasks import generate_task

    task = generate_task("negation_arithmetic", "easy", 5)
    right = f"Answer: {task.answer}"

    class SpreadPolicy:  # greedy: the right answer; sampled: one in four agrees
        def generate(self, batch, n=1, temperature=0.0, max_tokens=64):
            if temperature == 0.0:
                return [[right]]
            return [[right] + [f"Answer: {int(task.answer) + d}" for d in range(3, 3 + n - 1)]]

    monkeypatch.setattr(type(services), "policy", property(lambda self: SpreadPolicy()), raising=False)
    session = episode.new_episode(services, None, "negation_arithmetic", "easy", 5, episode.CHOSEN)[OUT.session]
    steps = list(episode.model_answer(services, session, 4))
    assert any("Drawing 4 more samples" in step[OUT.status] for step in steps)
    assert "Tier 3: 4 samples, pass rate 0.25" in steps[-1][OUT.status] and "unstable" in steps[-1][OUT.status]
    assert any("tier 3" in message["content"] for message in steps[-1][OUT.chat])
    assert [row["mode"] for row in services.bank.query(page_size=5).rows] == ["unstable"]


@pytest.mark.parametrize("k", ["abc", 0, 17, 2.5])
def test_a_bad_sample_count_is_refused_before_the_model_runs(services, k):
    session = episode.new_episode(services, None, "negation_arithmetic", "easy", 5, episode.CHOSEN)[OUT.session]
    steps = list(episode.model_answer(services, session, k))
    assert len(steps) == 1 and episode.SAMPLES_LABEL in steps[0][OUT.status]
    assert session.env.state["history"] == []


@pytest.mark.slow
def test_model_answer_with_k_samples_of_the_embedded_model(services):
    session = episode.new_episode(services, None, "negation_arithmetic", "easy", 5, episode.CHOSEN)[OUT.session]
    steps = list(episode.model_answer(services, session, 4))
    verdict = session.env.state["history"][0]["verdict"]
    assert verdict["tier"] == 3 and verdict["details"]["consistency"]["samples"] == 4
    assert "Tier 3: 4 samples" in steps[-1][OUT.status]


@pytest.mark.slow
def test_model_answer_with_the_embedded_model(services):
    session = episode.new_episode(services, None, "negation_arithmetic", "easy", 5, episode.CHOSEN)[OUT.session]
    steps = list(episode.model_answer(services, session))
    assert len(steps) >= 3 and "Model answered" in steps[-1][OUT.status]  # streamed: several partial steps
    assert len(session.env.state["history"]) == 1


@pytest.mark.slow
def test_auto_play_with_the_embedded_model(services):
    session = episode.new_episode(services, None, "negation_arithmetic", "easy", 5, episode.CHOSEN)[OUT.session]
    list(episode.auto_play(services, session))
    state = session.env.state
    assert state["done"] and (state["solved"] or state["failure_id"])


def test_a_repair_task_names_the_failure_it_repairs(services, add_failures):
    [failure_id] = add_failures(services, 1)
    out = episode.new_episode(services, None, None, None, "4", "next from curriculum: repair")
    assert f"Repair task for banked failure **#{failure_id}**" in out[OUT.task]
    assert services.bank.get(failure_id)["response"] in out[OUT.task]


def test_a_clear_of_the_chat_redraws_the_whole_episode(services):
    session = episode.new_episode(services, None, "negation_arithmetic", "easy", 5, episode.CHOSEN)[OUT.session]
    played = play(services, session, "Answer: 424242")
    out = episode.redraw(session)
    assert out[OUT.chat] == played[OUT.chat] and len(out[OUT.chat]) == 3  # task, answer, feedback prompt
    assert "turn 2 of 5" in out[OUT.task]
    assert episode.redraw(None)[OUT.chat] == []


def built_episode_tab(services):
    import gradio as gr

    with gr.Blocks() as demo:
        episode.build(services)
    return demo, {block.elem_id: block for block in demo.blocks.values() if getattr(block, "elem_id", None)}


def test_the_model_controls_wrap_on_a_phone(services):
    """Bug: the model line shared a row of equal height with the buttons; at 390 px it became a
    20 px column and stretched a button to 580 px. It sits above the row now, and every control in
    the row has a width below which the row wraps instead of squeezing it."""
    import gradio as gr

    demo, by_id = built_episode_tab(services)
    row = by_id["episode-model-row"]
    controls = [c for child in row.children for c in getattr(child, "children", [child])]  # a Form wraps the dropdown
    assert [type(c) for c in controls] == [gr.Dropdown, gr.Button, gr.Button, gr.Button]  # the model line is above
    assert all((c.min_width or 0) >= 390 // 2 for c in controls)  # two never fit side by side on a phone
    examples = next(b for b in demo.blocks.values() if isinstance(b, gr.Dataset))
    assert examples.sample_labels == ["negation_arithmetic · easy · seed 7", "negated_comparison · medium · seed 3",
                                      "false_claim · easy · seed 11", "distractor_order_of_ops · hard · seed 5"]


def test_the_chat_has_no_clear_button_and_a_clear_redraws_it(services):
    """Bug: the Chatbot's trash button emptied the chat mid-episode. Gradio 6 always draws it in the
    chat's toolbar (the only button there): the workbench CSS hides that toolbar, the per-message
    copy buttons stay, and a clear that still arrives redraws the episode."""
    from alice_app.ui.workbench import CSS

    demo, by_id = built_episode_tab(services)
    chat = by_id["episode-chat"]
    assert chat.buttons == ["copy"]  # no share / copy-all: the toolbar holds only Clear
    assert "#episode-chat .icon-button-wrapper.top-panel { display: none; }" in CSS
    clears = [d for d in demo.fns.values() if any(t == (chat._id, "clear") for t in d.targets)]
    assert len(clears) == 1 and clears[0].fn is episode.redraw


def test_wording_help_names_every_family_that_offers_a_free_wording_and_no_other():
    from alice_app.tasks.wordings import worded_families

    info = episode.wording_info()
    assert all(family in info for family in worded_families())
    assert "double_negation" in info and "rg_basic_arithmetic" not in info
