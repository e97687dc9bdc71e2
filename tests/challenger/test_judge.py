import json

from alice_app.challenger.difficulty import (FORM_CREDIT, challenger_reward, measure, near_duplicate_credit,
                                             uncertainty_reward)
from alice_app.challenger.family import SEED_TEMPLATES, known_wordings
from alice_app.challenger.judge import judge_batch, persist, summarize
from alice_app.store.db import open_db
from alice_app.store.templates import TemplateStore
from alice_app.verify.stack import VerifierStack

NEW = "TEMPLATE: Someone insists the total is {claim}. They are wrong. Add {a} and {b}.\nOP: add"


class AnswersRightHalfTheTime:
    """A unit-test stand-in for the solver: of every k samples, the first half are right."""

    model_id = "half-right"

    def generate(self, chats, n=1, temperature=0.0, max_tokens=64):
        out = []
        for chat in chats:
            prompt = chat[-1]["content"]
            import re

            numbers = [int(x) for x in re.findall(r"-?\d+", prompt)]
            right = numbers[-1] + numbers[-2]  # "Add a and b." ends with the operands
            out.append([f"Answer: {right}" if i < n // 2 else "Answer: 0" for i in range(n)])
        return out


def test_reward_peaks_at_one_half_and_is_zero_when_invalid():
    assert uncertainty_reward(0.5) == 1.0 and uncertainty_reward(0.0) == uncertainty_reward(1.0) == 0.0
    assert challenger_reward(False, 0.5) == 0.0
    assert challenger_reward(True, 0.5, penalty=0.25) == 0.75
    assert challenger_reward(True, 0.9, penalty=0.5) == 0.0
    assert challenger_reward(True, 0.0) == challenger_reward(True, 1.0) == FORM_CREDIT  # valid, novel, out of the zone


def test_the_reward_ranks_invalid_below_copies_below_novel_proposals():
    copies = [near_duplicate_credit(novelty) for novelty in (0.0, 0.2, 0.39)]
    assert copies == sorted(copies) and copies[0] == 0.0
    assert 0.0 < copies[-1] < challenger_reward(True, 1.0) < challenger_reward(True, 0.75) < challenger_reward(True, 0.5)


def test_measure_counts_passes_over_k_samples():
    from alice_app.challenger.family import fill
    from alice_app.challenger.proposal import parse_proposal

    tasks = [fill(parse_proposal(NEW), s) for s in (1, 2)]
    [difficulty] = measure(AnswersRightHalfTheTime(), VerifierStack(), [tasks], k=4)
    assert (difficulty.passes, difficulty.n, difficulty.pass_rate) == (4, 8, 0.5)


def test_a_batch_of_good_bad_and_duplicate_replies_is_judged_and_persisted(settings):
    store = TemplateStore(open_db(settings.db_path))
    seed_copy = json.dumps(SEED_TEMPLATES[0].to_dict())
    raws = [NEW, "", "x" * 1_000_000, "TEMPLATE: {a.__class__} add {b} {claim} zzz\nOP: add", seed_copy]
    judgements = judge_batch(raws, known_wordings(store), solver=AnswersRightHalfTheTime(),
                             verifier=VerifierStack(), fills=2, k=4)
    assert [j.reason for j in judgements] == [None, "empty", "too_long", "slot_syntax", "near_duplicate"]
    assert judgements[0].difficulty.pass_rate == 0.5
    assert judgements[0].reward == 1.0 - judgements[0].penalty > 0
    assert all(j.reward == 0.0 for j in judgements[1:4])
    assert judgements[4].reward == near_duplicate_credit(judgements[4].novelty) < FORM_CREDIT  # a copy: a little
    persist(judgements, store, proposer="unit", solver_id="half-right", round=1)
    assert [r["template_id"] for r in store.accepted()] == [judgements[0].proposal.template_id]
    assert store.rejection_counts() == {"empty": 1, "too_long": 1, "slot_syntax": 1, "near_duplicate": 1}
    figures = summarize(judgements)
    assert figures["validity_rate"] == 0.4 and figures["novelty_rate"] == 0.2 and figures["zone_rate"] == 0.2
    assert figures["rewarded_share"] == 0.2  # the exact copy earns nothing
    from alice_app.challenger.family import load_catalog

    load_catalog(TemplateStore(open_db(settings.db_path.parent / "empty.db")))
