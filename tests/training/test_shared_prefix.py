"""The shared prefix: which tokens run once, and that TRL's log-prob pass gives the same figures through it."""
import pytest

torch = pytest.importorskip("torch")

from alice_app.training.shared_prefix import SharedPrefixCalls, sharing_prefix_trainer_class, shared_prefix_length  # noqa: E402


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
