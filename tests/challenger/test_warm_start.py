"""The challenger's warm start: composed proposals that validation accepts, taught in the reply format."""
import pytest

from alice_app.challenger.coevolve import CoevolveConfig
from alice_app.challenger.family import SEED_TEMPLATES, fill
from alice_app.challenger.novelty import NEAR_DUPLICATE, nearest
from alice_app.challenger.proposal import OPS, parse_proposal, validate
from alice_app.challenger.warm_start import composed_proposals, warm_start_examples, warm_start_wordings

KNOWN = [p.template for p in SEED_TEMPLATES]


def test_composed_proposals_are_distinct_valid_and_cover_every_op():
    proposals = composed_proposals(64, 0)
    assert len(proposals) == 64 and len({p.template_id for p in proposals}) == 64
    assert {p.op for p in proposals} == set(OPS)
    for proposal in proposals:
        assert validate(proposal) == proposal
        task = fill(proposal, 3)  # the engine fills it and computes the answer, never stated
        assert task.answer not in task.prompt.split()
    assert composed_proposals(64, 0) == proposals and composed_proposals(64, 1) != proposals
    assert sum(nearest(p.template, KNOWN)[0] >= NEAR_DUPLICATE for p in proposals) <= 6  # not the seed templates


def test_each_example_is_the_challengers_prompt_answered_in_its_reply_format():
    proposals = composed_proposals(16, 0)
    examples = warm_start_examples(proposals, 0, KNOWN)
    assert len(examples) == 16
    for example in examples:
        asked = example.messages[-1]["content"].rsplit("OP: ", 1)[1]
        parsed = parse_proposal(example.completion)
        assert parsed.op == asked and parsed in proposals
    assert warm_start_wordings(16, 0) == [p.template for p in proposals] and warm_start_wordings(0, 0) == []


@pytest.mark.parametrize("value", [-1, 1001])
def test_a_bad_warm_start_size_is_refused(value):
    with pytest.raises(ValueError, match="challenger_warm_start must lie in 0..1000"):
        CoevolveConfig(challenger_warm_start=value).validate()
