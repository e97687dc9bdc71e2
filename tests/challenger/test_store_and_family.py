import pytest

from alice_app.challenger.family import SEED_TEMPLATES, catalog, load_catalog
from alice_app.challenger.proposal import parse_proposal
from alice_app.store.db import open_db
from alice_app.store.templates import TemplateStore
from alice_app.tasks.registry import generate_task
from alice_app.tasks.repair import same_template_variant

NEW = parse_proposal("TEMPLATE: Someone insists the total is {claim}. They are wrong. Add {a} and {b}.\nOP: add")


@pytest.fixture
def store(settings):
    db = open_db(settings.db_path)
    yield TemplateStore(db)
    load_catalog(TemplateStore(db))  # leave the process-wide catalog with the seeds only
    db.close()


def test_accepted_templates_persist_with_provenance_and_pass_rate_history(store, settings):
    assert store.accept(NEW, proposer="embedded+adapter", novelty=0.8, round=1, run_id=3)
    assert not store.accept(NEW, proposer="again", novelty=0.1)  # a repeat changes nothing
    store.record_pass_rate(NEW.template_id, 3, 8, solver="embedded", consistency=0.4)
    store.record_pass_rate(NEW.template_id, 1, 8, solver="embedded")
    reopened = TemplateStore(open_db(settings.db_path))
    row = reopened.get(NEW.template_id)
    assert (row["proposer"], row["round"], row["run_id"], row["level"]) == ("embedded+adapter", 1, 3, "easy")
    assert row["pass_rate"] == 0.25 and [h["p"] for h in row["history"]] == [0.375, 0.125]
    with pytest.raises(ValueError):
        store.record_pass_rate(NEW.template_id, 9, 8, solver="x")


def test_rejections_are_counted_and_a_huge_reply_is_stored_truncated(store):
    store.reject("x" * 1_000_000, "too_long", "too long", proposer="p")
    store.reject("", "empty", "empty", proposer="p")
    store.reject("", "empty", "empty", proposer="p")
    assert store.rejection_counts() == {"empty": 2, "too_long": 1}
    assert max(len(r["raw"]) for r in store.rejections()) == 500


def test_stored_templates_are_drawable_by_the_registry_and_repair_and_deletable(store):
    store.accept(NEW, proposer="p", novelty=0.9)
    assert load_catalog(store) == len(SEED_TEMPLATES) + 1
    task = generate_task("challenger", "easy", 11, template_id=NEW.template_id)
    assert task.metadata["template_id"] == NEW.template_id and "insists" in task.prompt
    variant = same_template_variant(task, 12)
    assert variant.metadata["template_id"] == NEW.template_id and variant.prompt != task.prompt
    assert store.delete(NEW.template_id) and not store.delete(NEW.template_id)
    load_catalog(store)
    assert NEW.template_id not in catalog()
    with pytest.raises(ValueError, match="not in the catalog"):
        generate_task("challenger", "easy", 11, template_id=NEW.template_id)


def test_rounds_and_duels_round_trip(store):
    store.add_round(1, 1, {"validity_rate": 0.5}, "a/challenger", "a/solver")
    store.add_duel("A", "B", {"maps": {}})
    assert store.rounds(1)[0]["figures"] == {"validity_rate": 0.5}
    assert store.duels()[0]["model_a"] == "A"
