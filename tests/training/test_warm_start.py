"""The rejection-sampling warm start: which completions it keeps, and when it runs (fast; the real
fine-tuning on the embedded model is in test_training_slow.py)."""
from collections import Counter
from types import SimpleNamespace

from alice_app.tasks.registry import control_of, core_family_names, generate_task
from alice_app.tasks.solutions import worked_solution
from alice_app.training.callbacks import AtFreshStart
from alice_app.training.feed import FeedItem
from alice_app.training.prompts import task_messages, training_messages
from alice_app.training.warm_start import KEEP_PER_PROMPT, WarmStartReport, keep_correct, \
    item_examples, repair_items, teaches_twin, warm_start_items, worked_examples
from alice_app.verify.stack import VerifierStack


def _item(family, seed):
    task = generate_task(family, "easy", seed)
    return FeedItem(task=task, source="static", messages=tuple(task_messages(task)))


def test_keeps_distinct_correct_self_consistent_answers_and_counts_every_correct_one():
    item = _item("plain_arithmetic", 4)
    right, wrong = item.task.answer, str(int(item.task.answer) + 1)
    completions = [[f"Answer: {right}", f"Answer: {right}", f"Answer: {wrong}",
                    f"1 + 1 = {wrong}. Answer: {right}",  # correct, but contradicts its own sum: never taught
                    f"So it is {right}.\nAnswer: {right}", f"Sure.\nAnswer: {right}"]]
    examples, correct = keep_correct([item], completions, VerifierStack())
    assert correct == 5
    assert [e.completion for e in examples] == [f"Answer: {right}", f"So it is {right}.\nAnswer: {right}"]
    assert len(examples) == KEEP_PER_PROMPT and all(e.messages == item.messages for e in examples)


def test_a_prompt_without_a_correct_answer_contributes_nothing():
    items = [_item("negation_arithmetic", 1), _item("plain_arithmetic", 2)]
    completions = [["Answer: 99999"] * 3, [f"Answer: {items[1].task.answer}"] * 3]
    examples, correct = keep_correct(items, completions, VerifierStack())
    assert correct == 3 and [e.messages for e in examples] == [items[1].messages]


def test_the_prompts_cover_the_families_and_levels_and_depend_only_on_the_seed():
    first = warm_start_items(["negation_arithmetic", "plain_arithmetic"], 6, 0, task_messages)
    again = warm_start_items(["negation_arithmetic", "plain_arithmetic"], 6, 0, task_messages)
    other = warm_start_items(["negation_arithmetic", "plain_arithmetic"], 6, 1, task_messages)
    assert [i.task.id for i in first] == [i.task.id for i in again] != [i.task.id for i in other]
    assert {(i.task.family, i.task.level) for i in first} == {
        (f, lv) for f in ("negation_arithmetic", "plain_arithmetic") for lv in ("easy", "medium", "hard")}


def _bank_failures(services, cells):
    for family, level, seed in cells:
        task = generate_task(family, level, seed)
        services.bank.record(task, "Answer: 0", services.verifier.verify(task, "Answer: 0"), mode="distractor_echo",
                             source="test")
    return services.bank.repair_candidates()


def test_the_warm_start_adds_fresh_variants_of_the_banks_failures_taught_as_they_were_asked(services):
    rows = _bank_failures(services, [("negation_arithmetic", "medium", 11), ("false_claim", "easy", 12),
                                     ("double_negation", "easy", 13)])  # the last is not in this run's families
    families = ["negation_arithmetic", "false_claim", "plain_arithmetic"]
    uniform = warm_start_items(families, 4, 0, task_messages)
    items = warm_start_items(families, 4, 0, training_messages(0.0, 1.0, 0.0), failures=rows, repairs=6)
    repairs = [i for i in items if i.source == "repair"]
    assert len(items) == 10 and len(repairs) == 6
    assert sorted(i.task.id for i in items if i.source != "repair") == sorted(i.task.id for i in uniform)
    failed = {row["id"]: row["task"] for row in rows}
    assert {failed[i.failure_id]["family"] for i in repairs} == {"negation_arithmetic", "false_claim"}
    for item in repairs:  # same family, level and template; new numbers; taught in turn, never the failed task
        original = failed[item.failure_id]
        assert (item.task.family, item.task.level) == (original["family"], original["level"])
        assert item.task.metadata["repair_of"] == original["id"] and item.task.prompt != original["prompt"]
        assert item.messages == tuple(task_messages(item.task))  # asked as the hunt asked its failure
        assert [e.messages for e in item_examples(item)] == [item.messages]
    assert sorted(Counter(i.failure_id for i in repairs).values()) == [3, 3]
    assert len({i.task.id for i in repairs}) == 6
    other = next(i for i in items if i.source != "repair")
    assert len(item_examples(other)) == len(worked_examples([other.task])) > 1  # every wording


def test_an_empty_or_repaired_bank_adds_nothing_to_the_warm_start(services):
    rows = [{**row, "repaired": True} for row in _bank_failures(services, [("negation_arithmetic", "easy", 5)])]
    uniform = warm_start_items(["negation_arithmetic"], 6, 2, task_messages)
    for failures in ((), rows):
        items = warm_start_items(["negation_arithmetic"], 6, 2, task_messages, failures=failures, repairs=3)
        assert [i.task.id for i in items] == [i.task.id for i in uniform]
    assert repair_items(rows, ["negation_arithmetic"], 4, 0) == []


def test_runs_once_at_the_start_of_a_fresh_run_and_not_on_resume():
    report = WarmStartReport(prompts=2, samples=8, correct=3, kept=2, steps=1, mean_loss=0.5, seconds=1.0, cpu_seconds=0.9)
    started, reports = [], []
    callback = AtFreshStart(lambda model: started.append(model) or report, reports.append)
    callback.on_train_begin(None, SimpleNamespace(global_step=3), None, model="resumed")
    callback.on_train_begin(None, SimpleNamespace(global_step=0), None, model="fresh")
    assert started == ["fresh"] and reports == [report]
    assert report.as_metrics() == {"warm_start_prompts": 2.0, "warm_start_samples": 8.0, "warm_start_correct": 3.0,
                                   "warm_start_kept": 2.0, "warm_start_steps": 1.0, "warm_start_mean_loss": 0.5,
                                   "warm_start_seconds": 1.0, "warm_start_cpu_seconds": 0.9}


def test_a_report_without_fine_tuning_steps_leaves_the_loss_out():
    report = WarmStartReport(prompts=2, samples=8, correct=0, kept=0, steps=0, mean_loss=None, seconds=1.0, cpu_seconds=0.9)
    assert "warm_start_mean_loss" not in report.as_metrics()


def test_worked_examples_ask_each_task_in_all_its_wordings_with_one_answer():
    from alice_app.tasks._common import ANSWER_FORMAT
    from alice_app.training.warm_start import worked_examples

    task = generate_task("negation_arithmetic", "medium", 11)
    examples = worked_examples([task])
    prompts = [e.messages[-1]["content"] for e in examples]
    assert len(examples) == 3 and len(set(prompts)) == 3  # its own wording, another phrasing, a free one
    assert ANSWER_FORMAT in prompts[0] and not any(ANSWER_FORMAT in p for p in prompts[1:])
    assert {e.completion for e in examples} == {f"9 - 8 = 1\nAnswer: {task.answer}"}
    comparison = worked_examples([generate_task("negated_comparison", "easy", 3)])
    assert len(comparison) == 3 and comparison[0].completion == \
        "84 < 90: smaller 84, larger 90.\n90 is the larger, so the answer is 84.\nAnswer: 84"
    adapted = worked_examples([generate_task("rg_basic_arithmetic", "easy", 3)])
    assert len(adapted) == 1  # no other phrasing and no free wording: its own only


def test_the_source_must_be_known():
    import pytest

    from alice_app.training.config import TrainConfig

    assert TrainConfig(warm_start_prompts=8, warm_start_source="worked").validate().warm_start_source == "worked"
    with pytest.raises(ValueError, match="warm_start_source must be one of samples, worked"):
        TrainConfig(warm_start_source="teacher").validate()


def test_the_completion_loss_is_the_models_own_loss_and_gradient_with_fewer_logits():
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    from alice_app.training.warm_start import completion_loss

    torch.manual_seed(0)
    model = LlamaForCausalLM(LlamaConfig(vocab_size=50, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                         num_attention_heads=2, num_key_value_heads=2))
    ids = torch.randint(1, 50, (2, 7))
    ids[1, :3] = ids[0, :3]  # a shared beginning (the system prompt's place), computed once by default
    labels = torch.full_like(ids, -100)
    labels[0, 3:] = ids[0, 3:]  # the first row's completion fills the row
    labels[1, 4:6] = ids[1, 4:6]  # the second's is followed by padding
    mask = torch.ones_like(ids)
    mask[1, 6:] = 0
    batch = {"input_ids": ids, "attention_mask": mask, "labels": labels}
    full = model(**batch).loss
    full.backward()
    expected = [p.grad.clone() for p in model.parameters()]
    for share_prefix in (True, False):
        model.zero_grad()
        kept = completion_loss(model, batch, share_prefix=share_prefix)
        kept.backward()
        assert torch.allclose(kept, full, atol=1e-6)
        assert all(torch.allclose(p.grad, g, atol=1e-6) for p, g in zip(model.parameters(), expected))


def test_a_share_of_deceptive_tasks_is_taught_with_its_control_twin_right_after():
    items = [_item(family, seed) for family in (*core_family_names(), "plain_arithmetic") for seed in range(12)]
    for item in items:
        assert item_examples(item, 0.0) == worked_examples([item.task])  # off: as before
        with_twin = item_examples(item, 1.0)
        if item.task.family == "plain_arithmetic":  # a control itself: nothing to add
            assert with_twin == worked_examples([item.task])
            continue
        twin = control_of(item.task)
        assert with_twin[:-1] == worked_examples([item.task]) and twin.answer == with_twin[-1].completion.split()[-1]
        assert with_twin[-1].messages == tuple(task_messages(twin)) and with_twin[-1].completion == worked_solution(twin)
    deceptive = [item.task for item in items if item.task.family != "plain_arithmetic"]
    quarter, half = ({t.id for t in deceptive if teaches_twin(t, share)} for share in (0.25, 0.5))
    assert quarter < half and 0.1 < len(quarter) / len(deceptive) < 0.4  # a fixed draw per task; more share adds
    assert {t.id for t in deceptive if teaches_twin(t, 0.5)} == half  # the same tasks every time
