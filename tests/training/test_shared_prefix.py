"""The shared prefix: which tokens run once, and that TRL's log-prob pass gives the same figures through it."""
import pytest

torch = pytest.importorskip("torch")

from alice_app.training.shared_prefix import (SharedPrefixCalls, generate_sharing_prompt,  # noqa: E402
                                               generating_with_shared_prompt, shared_prefix_length,
                                               shared_prompt_length, sharing_prefix_trainer_class)


def test_the_shared_prefix_stops_before_any_row_predicts_a_scored_token():
    ids = torch.tensor([[1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 9, 9]])
    labels = torch.full_like(ids, -100)
    labels[:, 5:] = ids[:, 5:]
    assert shared_prefix_length(ids, labels) == 4  # the rows part at the fifth token
    assert shared_prefix_length(ids, labels, keep=2) == 3  # and three positions stay after it
    mask = torch.ones_like(ids)
    mask[1, 2] = 0  # the same token ids, masked in one row only: not shared
    assert shared_prefix_length(ids, labels, mask) == 2
    labels[1, 3:] = ids[1, 3:]  # the second row's completion starts at the fourth token: position 2 predicts it
    assert shared_prefix_length(ids, labels) == 2
    assert shared_prefix_length(torch.tensor([[1, 2], [3, 2]]), torch.tensor([[-100, 2], [-100, 2]])) == 0
    assert shared_prefix_length(ids[:1], labels[:1]) == 0  # one row: nothing to share


def _tiny_model():
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    return LlamaForCausalLM(LlamaConfig(vocab_size=50, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                                        num_attention_heads=2, num_key_value_heads=2))


def test_trls_log_prob_pass_gives_the_same_log_probs_entropies_and_gradients_through_the_shared_prefix():
    from trl.trainer.utils import add_fused_lm_head

    model = _tiny_model()
    add_fused_lm_head(model, temperature=0.7, outputs=("log_probs", "entropy"))
    prompt = torch.randint(1, 50, (1, 6))  # one prompt, left-padded by a token, four completions as TRL batches them
    completions = torch.randint(1, 50, (4, 5))
    ids = torch.cat([prompt.repeat(4, 1), completions], dim=1)
    mask = torch.ones_like(ids)
    mask[:, 0] = 0  # the prompt's left padding
    mask[1, 9:] = 0  # a completion that ended early
    keep = completions.shape[1]
    labels = ids.masked_fill(mask == 0, -100)
    labels[:, :-keep] = -100  # as TRL scores them: the completion tokens only
    results = []
    for call in (model, SharedPrefixCalls(model, keep)):
        model.zero_grad()
        out = call(input_ids=ids, attention_mask=mask, labels=labels, fused_lm_head=True)
        log_probs, entropy = out.log_probs[:, -keep:], out.entropy[:, -keep:]
        (log_probs.sum() + entropy.sum()).backward()
        results.append((log_probs.detach(), entropy.detach(), [p.grad.clone() for p in model.parameters()]))
    (whole_lp, whole_ent, whole_grads), (shared_lp, shared_ent, shared_grads) = results
    assert shared_prefix_length(ids, labels, mask, keep) == 5  # the prompt, short of its last token
    assert torch.allclose(shared_lp, whole_lp, atol=1e-5) and torch.allclose(shared_ent, whole_ent, atol=1e-5)
    assert all(torch.allclose(s, w, atol=1e-5) for s, w in zip(shared_grads, whole_grads))


def test_the_trainer_calls_the_model_through_the_shared_prefix_for_text_and_not_for_images():
    class Recorder:
        def _get_per_token_logps_and_entropies(self, model, input_ids, attention_mask, logits_to_keep, **kwargs):
            return model

    trainer = sharing_prefix_trainer_class(Recorder)()
    model = object()
    through = trainer._get_per_token_logps_and_entropies(model, None, None, 3, compute_entropy=True)
    assert isinstance(through, SharedPrefixCalls) and through.model is model and through.keep == 3
    assert trainer._get_per_token_logps_and_entropies(model, None, None, 3, pixel_values=torch.zeros(1)) is model


def test_the_shared_prompt_is_the_unpadded_tokens_all_rows_begin_with_short_of_the_last():
    ids = torch.tensor([[5, 6, 7, 8]] * 3)
    mask = torch.ones_like(ids)
    assert shared_prompt_length(ids, mask) == 3  # generate runs the last token itself
    assert shared_prompt_length(torch.tensor([[5, 6, 7, 8], [5, 6, 9, 8]]), mask[:2]) == 2
    padded = torch.tensor([[0, 0, 7, 8], [0, 5, 7, 8]])
    assert shared_prompt_length(padded, (padded != 0).long()) == 0  # left padding is never prefilled
    both_padded = torch.tensor([[0, 5, 7, 8], [0, 5, 7, 8]])
    assert shared_prompt_length(both_padded, (both_padded != 0).long()) == 0
    assert shared_prompt_length(ids[:1], mask[:1]) == 0


def _sampling_config(model):
    from transformers import GenerationConfig

    return GenerationConfig(max_new_tokens=6, do_sample=True, temperature=1.0, top_k=0, pad_token_id=0,
                            eos_token_id=49, bos_token_id=1)


def test_generating_with_the_prompt_prefilled_once_samples_the_same_tokens():
    model = _tiny_model().eval()
    ids = torch.randint(1, 49, (1, 7)).repeat(4, 1)  # a GRPO group: one prompt, four rows
    mask = torch.ones_like(ids)
    config = _sampling_config(model)
    prefilled = []

    def recording_generate(**kwargs):
        prefilled.append((kwargs["cache"].get_seq_length(), kwargs["cache"].layers[0].keys.shape[0]))
        return model.generate(**kwargs)

    torch.manual_seed(3)
    plain = model.generate(input_ids=ids, attention_mask=mask, generation_config=config)
    torch.manual_seed(3)
    shared = generate_sharing_prompt(recording_generate, model, input_ids=ids, attention_mask=mask,
                                     generation_config=config)
    assert prefilled == [(6, 4)]  # the prompt short of its last token, repeated for the four rows
    assert torch.equal(shared, plain) and plain.shape == (4, 13)


def test_a_batch_without_a_shared_prompt_or_with_inputs_of_its_own_is_generated_as_it_came():
    model = _tiny_model().eval()
    calls = []

    def recording_generate(**kwargs):
        calls.append(kwargs)
        return "generated"

    distinct = torch.tensor([[0, 3, 4, 5], [6, 7, 8, 9]])
    config = _sampling_config(model)
    assert generate_sharing_prompt(recording_generate, model, input_ids=distinct,
                                   attention_mask=(distinct != 0).long(), generation_config=config) == "generated"
    group = torch.tensor([[3, 4, 5, 6]] * 2)
    generate_sharing_prompt(recording_generate, model, input_ids=group, attention_mask=torch.ones_like(group),
                            generation_config=config, pixel_values=torch.zeros(1))
    config.use_cache = False
    generate_sharing_prompt(recording_generate, model, input_ids=group, attention_mask=torch.ones_like(group),
                            generation_config=config)
    assert all("cache" not in call for call in calls) and len(calls) == 3


def test_the_trainer_generates_text_through_the_shared_prompt_and_leaves_other_generation_alone():
    class Model:
        def generate(self, **kwargs):
            return "plain"

    class Accelerator:
        @staticmethod
        def unwrap_model(model):
            return model

    class Recorder:
        use_vllm = use_transformers_continuous_batching = False
        accelerator = Accelerator()

        def __init__(self):
            self.model_wrapped = Model()

        def _generate_single_turn(self, prompt_ids, images, multimodal_fields, num_generations):
            return self.model_wrapped.generate

    trainer = sharing_prefix_trainer_class(Recorder)()
    during = trainer._generate_single_turn([[1, 2]], None, {}, 2)
    assert during.func is generate_sharing_prompt and during.args[1] is trainer.model_wrapped
    assert "generate" not in vars(trainer.model_wrapped)  # put back after the call
    assert trainer._generate_single_turn([[1, 2]], [[object()]], {}, 2)() == "plain"
    assert trainer._generate_single_turn([[1, 2]], None, {"pixel_values": [1]}, 2)() == "plain"
    trainer.use_vllm = True
    assert trainer._generate_single_turn([[1, 2]], None, {}, 2)() == "plain"
    model = Model()
    with generating_with_shared_prompt(model):
        assert model.generate.func is generate_sharing_prompt
    assert model.generate() == "plain"
