"""bench/batched_greedy.py: its arguments, the prompts it plays and how it cuts them into calls (fast)."""
import pytest


@pytest.fixture
def bench(load_script):
    return load_script("bench/batched_greedy.py")


class RecordingPolicy:
    """Answers each chat with its own text and records every call's size and token limit."""

    def __init__(self):
        self.calls = []

    def generate(self, chats, n=1, temperature=0.0, max_tokens=64):
        self.calls.append((len(chats), max_tokens))
        return [[chat[-1]["content"]] for chat in chats]


def test_replies_keep_the_prompts_order_in_calls_of_one_token_limit_and_at_most_the_batch(bench):
    asked = [(str(i), [{"role": "user", "content": f"q{i}"}], limit, None)
             for i, limit in enumerate([80, 80, 80, 112, 112, 80])]
    policy = RecordingPolicy()
    assert bench.replies(policy, asked, per_call=2) == [f"q{i}" for i in range(6)]
    assert policy.calls == [(2, 80), (1, 80), (2, 112), (1, 80)]


def test_it_plays_every_held_out_task_its_twin_and_the_paraphrase_set(bench):
    from bench.paraphrases import load_paraphrases

    asked = bench.prompts(n_per_cell=1)
    held_out = [what for what, *_ in asked if not what.startswith("paraphrase")]
    assert len(held_out) == 21 + 18  # seven families x three levels, and the six deceptive families' twins
    assert len(asked) - len(held_out) == len(load_paraphrases())
    what, chat, limit, judge = asked[0]
    assert chat[0]["role"] == "system" and limit == 80 and judge("Answer: -999999") is False


@pytest.mark.parametrize("argv, message", [(["--batch", "1"], "--batch must be >= 2"),
                                           (["--n-per-cell", "0"], "--n-per-cell >= 1"),
                                           (["--warm-start", "-1"], "--warm-start >= 0")])
def test_bad_arguments_fail_before_anything_loads(bench, argv, message, capsys):
    with pytest.raises(SystemExit) as raised:
        bench.parse_args(argv)
    assert raised.value.code == 2 and message in capsys.readouterr().err
