import pytest

from alice_app.models.local import LocalPolicy, plain_transcript


def test_plain_transcript_for_models_without_a_chat_template():
    chat = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "What is 3 + 4?"}]
    assert plain_transcript(chat) == "System: Be brief.\nUser: What is 3 + 4?\nAssistant:"


WORDS = "what is three plus four seven the answer not fourteen ignore".split()


@pytest.fixture(scope="module")
def tiny_policy():
    """A real (tiny, randomly initialised) Llama and a real word-level tokenizer: fast, offline."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    vocab = {word: i for i, word in enumerate(["<pad>", "<eos>", "<unk>", *WORDS])}
    core = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, pad_token="<pad>", eos_token="<eos>", unk_token="<unk>")
    tokenizer.chat_template = "{% for m in messages %}{{ m['content'] }} {% endfor %}"
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(vocab), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, pad_token_id=0, eos_token_id=1, bos_token_id=1)
    return LocalPolicy(LlamaForCausalLM(config).eval(), tokenizer, "tiny", batch_size=2)


def chat(text):
    return [{"role": "user", "content": text}]


def test_greedy_batches_match_single_chats_despite_left_padding(tiny_policy):
    chats = [chat("what is three plus four"), chat("seven"), chat("ignore fourteen what is the answer"),
             chat("not seven"), chat("four")]
    batched = tiny_policy.generate(chats, n=3, max_tokens=5)
    assert [len(row) for row in batched] == [3] * 5
    assert all(len(set(row)) == 1 for row in batched)  # greedy: n copies of one answer
    assert batched == [tiny_policy.generate([c], n=3, max_tokens=5)[0] for c in chats]
    assert tiny_policy.tokenizer.padding_side == "left"


def test_sampling_gives_n_answers_per_chat(tiny_policy):
    rows = tiny_policy.generate([chat("what is three"), chat("plus four")], n=3, temperature=1.5, max_tokens=6)
    assert [len(row) for row in rows] == [3, 3]
    assert all(isinstance(text, str) for row in rows for text in row)


@pytest.mark.parametrize("kwargs", [{"n": 0}, {"temperature": -1}, {"max_tokens": 0}])
def test_bad_arguments(tiny_policy, kwargs):
    with pytest.raises(ValueError):
        tiny_policy.generate([chat("seven")], **kwargs)


def test_a_seeded_completion_repeats_and_leaves_the_global_generator_alone(tiny_policy):
    import torch

    prompts = ["what is three plus", "not seven the", "four plus"]
    torch.manual_seed(123)
    expected_next = torch.rand(1)
    torch.manual_seed(123)
    first = tiny_policy.complete(prompts, temperature=1.5, max_tokens=8, seed=7)
    assert torch.rand(1) == expected_next  # the global state is as it was before the call
    assert tiny_policy.complete(prompts, temperature=1.5, max_tokens=8, seed=7) == first
    others = [tiny_policy.complete(prompts, temperature=1.5, max_tokens=8, seed=seed) for seed in range(8, 12)]
    assert any(other != first for other in others)  # the seed, not a fixed stream, picks the samples


def test_sampled_answers_inside_seeded_sampling_repeat_for_the_same_seed(tiny_policy):
    from alice_app.models.local import seeded_sampling

    chats = [[{"role": "user", "content": text}] for text in ("what is three plus", "not seven the")]

    def sampled(seed):
        with seeded_sampling(seed):  # what a duel's failure map does around its solver's k samples
            return tiny_policy.generate(chats, n=3, temperature=1.5, max_tokens=8)

    first = sampled(7)
    assert sampled(7) == first
    assert any(sampled(seed) != first for seed in range(8, 12))


def test_kept_prompts_give_the_greedy_answers_of_whole_prompts_turn_after_turn(tiny_policy):
    first = [chat("what is three plus four"), chat("ignore fourteen what is the answer"), chat("seven")]
    whole = tiny_policy.generate(first, max_tokens=4)
    second = [c + [{"role": "assistant", "content": r[0]}, {"role": "user", "content": "not seven"}]
              for c, r in zip(first, whole)]
    whole_second = tiny_policy.generate(second, max_tokens=4)
    with tiny_policy.keeping_prompts() as cache:
        assert tiny_policy.generate(first, max_tokens=4) == whole
        asked_first = cache.reused_tokens + cache.prefilled_tokens
        assert tiny_policy.generate(second, max_tokens=4) == whole_second
        turn_two = cache.reused_tokens + cache.prefilled_tokens - asked_first
        assert cache.reused_tokens >= asked_first  # turn 2 prefilled only what turn 1 did not hold
        assert cache.prefilled_tokens < asked_first + turn_two
        with tiny_policy.keeping_prompts() as inner:  # a block inside another keeps the same prompts
            assert inner is cache
    assert tiny_policy._prompts is None  # dropped after the block: the weights may change after it


def test_a_prompt_cache_over_budget_keeps_nothing_and_answers_the_same(tiny_policy):
    chats = [chat("what is three plus four"), chat("not seven the answer")]
    with tiny_policy.keeping_prompts(budget_bytes=0) as cache:
        assert tiny_policy.generate(chats, max_tokens=4) == tiny_policy.generate(chats, max_tokens=4)
        assert cache.entries == {} and cache.bytes == 0 and cache.reused_tokens == 0
    with pytest.raises(ValueError, match="budget"):
        with tiny_policy.keeping_prompts(budget_bytes=-1):
            pass


def test_kept_prompts_sample_the_answers_whole_prompts_sample(tiny_policy):
    from alice_app.models.local import seeded_sampling

    chats = [chat("what is three plus"), chat("not seven the"), chat("four")]
    with seeded_sampling(5):
        whole = tiny_policy.generate(chats, n=3, temperature=1.5, max_tokens=6)
    with tiny_policy.keeping_prompts(), seeded_sampling(5):
        kept = tiny_policy.generate(chats, n=3, temperature=1.5, max_tokens=6)
    assert kept == whole and [len(row) for row in kept] == [3, 3, 3]


def test_a_model_whose_cache_cannot_be_spliced_generates_without_one():
    from types import SimpleNamespace

    from transformers import Gemma2Config, LlamaConfig, MistralConfig

    from alice_app.models.prompt_cache import supports

    assert supports(SimpleNamespace(config=LlamaConfig(num_hidden_layers=2)))
    assert not supports(SimpleNamespace(config=MistralConfig(num_hidden_layers=2, sliding_window=16)))
    assert not supports(SimpleNamespace(config=Gemma2Config(num_hidden_layers=2)))
    policy = LocalPolicy(SimpleNamespace(config=Gemma2Config(num_hidden_layers=2)), _FakeTokenizer(), "sliding")
    with policy.keeping_prompts() as cache:
        assert cache is None and policy._prompts is None


class _FakeTokenizer:
    pad_token = "<pad>"
    padding_side = "right"


def test_common_prefix_length():
    from alice_app.models.prompt_cache import common_prefix_length

    assert common_prefix_length((1, 2, 3, 4), (1, 2, 9)) == 2
    assert common_prefix_length((1, 2), (1, 2, 3)) == 2
    assert common_prefix_length((5,), (1,)) == 0
    assert common_prefix_length((), (1, 2)) == 0
    assert common_prefix_length(tuple(range(1000)), tuple(range(999)) + (7,)) == 999
