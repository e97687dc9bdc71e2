"""The episode as a conversation: pure formatting of environment state into chat messages."""
from types import SimpleNamespace

from alice_app.episode import FINAL_PROMPT
from alice_app.ui import conversation as chat

VERDICT = {"is_correct": False, "confidence": 0.9, "feedback": "You answered 14, the number to ignore.",
           "tier": 1, "extracted": "14"}
TASK = {"id": "negation_arithmetic/easy/3", "family": "negation_arithmetic", "level": "easy",
        "prompt": "If the result is NOT 14, what is 3 + 4?", "answer": "7", "seed": 3, "metadata": {}}


def turn(index, kind, prompt, response="Answer: 14", verdict=VERDICT, total=-0.2):
    return {"index": index, "kind": kind, "prompt": prompt, "response": response, "verdict": verdict,
            "reward": {"total": total, "components": {"correctness": 0.0}}}


def test_each_answer_is_badged_with_verdict_reward_and_mode():
    state = {"task": TASK, "history": [turn(1, "attempt", TASK["prompt"])], "done": False}
    messages = chat.chat_messages(state, "You answered 14. Try again.", ["distractor_echo"])
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[0]["content"].startswith("**Task**") and "NOT 14" in messages[0]["content"]
    badge = messages[1]["content"]
    assert "✗ wrong · tier 1 · confidence 0.90 · reward -0.200 · mode `distractor_echo`" in badge
    assert messages[2]["content"].startswith("**Verifier feedback**")


def test_final_prompt_keeps_its_angle_brackets_escaped():  # bug 2: '<number>' was eaten as HTML
    history = [turn(i, k, "p") for i, k in enumerate(("attempt", "feedback", "reflection", "hint"), 1)]
    messages = chat.chat_messages({"task": TASK, "history": history, "done": False}, FINAL_PROMPT)
    assert messages[-1]["content"].endswith("'Answer: &lt;number&gt;'.")
    assert messages[-1]["content"].startswith("**Final prompt**")


def test_the_hint_appears_once():  # bug 3: turn 4 showed the hint as a quote and as a "Hint:" line
    history = [turn(i, k, "p") for i, k in enumerate(("attempt", "feedback", "reflection"), 1)]
    hint = "The NOT-clause names a value to ignore."
    messages = chat.chat_messages({"task": TASK, "history": history, "done": False}, f"Hint: {hint} Try again.")
    assert sum(m["content"].count(hint) for m in messages) == 1


def test_the_ending_names_the_banked_failure_and_the_answer():
    history = [turn(i, k, "p") for i, k in enumerate(("attempt", "feedback", "reflection", "hint", "final"), 1)]
    state = {"task": TASK, "history": history, "done": True, "solved": False, "failure_id": 4,
             "failure_mode": "distractor_echo"}
    ending = chat.chat_messages(state, None, [], hint="ignore 14")[-1]["content"]
    assert "Not solved after 5 turns" in ending and "#4" in ending and "`distractor_echo`" in ending
    assert "**Expected answer:** `7`" in ending and "ignore 14" in ending
    assert "Solved at turn 1" in chat.format_ending({"task": TASK, "history": history[:1], "solved": True}, None)


def test_stepper_and_task_card():
    assert chat.stepper(2, False) == "● ● ◉ ○ ○ **turn 3 of 5**"
    assert chat.stepper(3, True).endswith("**finished**")
    obs = SimpleNamespace(family="negation_arithmetic", level="easy", task_id="t/easy/3", turn=2, done=False,
                          info={"repair_of": 12})
    card = chat.format_task_card(obs, {"rewards": [-0.2, 0.5]}, "the model (m)")
    assert "turn 3 of 5" in card and "episode total **+0.300**" in card and "failure **#12**" in card
    assert "the model (m)" in card
    row = {"prompt": "If the result is NOT 41, what is 3 + 4?", "response": "Answer: 41", "mode": "distractor_echo"}
    card = chat.format_task_card(obs, {"rewards": []}, None, row)
    assert "failure **#12**: “If the result is NOT 41, what is 3 + 4?” was answered `Answer: 41`" in card
    assert "(mode `distractor_echo`)" in card
    assert "New episode" in chat.format_task_card(None, {})


def test_model_line_names_the_model_and_endpoint():
    assert "m (local)" in chat.format_model(SimpleNamespace(model_name="m", api_base_url=None))
    assert "http://x/v1" in chat.format_model(SimpleNamespace(model_name="m", api_base_url="http://x/v1"))
    local = SimpleNamespace(model_name="m", api_base_url=None)
    assert "m (local)" in chat.format_model(local, "m")  # the configured model, loaded
    assert "m+adapter (local, with a trained adapter" in chat.format_model(local, "m+adapter")
