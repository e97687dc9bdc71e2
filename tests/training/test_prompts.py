from alice_app.numbers import spell
from alice_app.tasks import generate_task
from alice_app.tasks._common import ANSWER_FORMAT
from alice_app.training.prompts import task_messages, training_messages


def test_a_share_of_training_prompts_lose_the_format_line_deterministically():
    tasks = [generate_task("negation_arithmetic", "easy", seed) for seed in range(400)]
    build = training_messages(0.25)
    stripped = [t for t in tasks if ANSWER_FORMAT not in build(t)[-1]["content"]]
    assert 60 <= len(stripped) <= 140
    assert all(build(t) == build(t) for t in tasks[:20])
    assert all(training_messages(0.0)(t) == task_messages(t) for t in tasks[:20])
    assert all(ANSWER_FORMAT not in training_messages(1.0)(t)[-1]["content"] for t in tasks[:20])


def test_every_family_with_phrasings_is_rephrased_and_others_are_not():
    build = training_messages(rephrase_share=1.0)
    for family in ("negated_comparison", "double_negation", "exclusion_counting"):
        tasks = [generate_task(family, "easy", seed) for seed in range(30)]
        assert sum(build(t) != task_messages(t) for t in tasks) >= 25, family
    other = generate_task("negation_arithmetic", "easy", 1, phrasing="verb")  # already in other words
    assert build(other) == task_messages(other)
    from alice_app.tasks.registry import control_of

    twin = control_of(generate_task("negated_comparison", "easy", 1))  # not a registered family
    assert build(twin) == task_messages(twin)


def test_a_share_of_training_prompts_are_asked_in_other_words_with_the_same_numbers():
    tasks = [generate_task(family, "medium", seed) for family in ("negation_arithmetic", "false_claim")
             for seed in range(200)]
    build = training_messages(rephrase_share=0.5)
    changed = [t for t in tasks if build(t) != task_messages(t)]
    assert 150 <= len(changed) <= 250
    assert all(build(t) == build(t) for t in changed[:20])
    for task in changed:
        prompt = build(task)[-1]["content"]
        assert all(str(n) in prompt for n in task.metadata["distractors"])
        assert all(str(n) in prompt or spell(n) in prompt for n in task.metadata["operands"])
        assert ANSWER_FORMAT in prompt
    wordings = {build(t)[-1]["content"].split(",")[1].split()[0] for t in changed
                if t.family == "negation_arithmetic" and t.metadata["params"]["clause_position"] == "start"}
    assert wordings >= {"add", "work", "how", "what", "find"}
    assert any(spell(t.metadata["operands"][0]) in build(t)[-1]["content"] for t in changed)  # "what is seven plus four?"
    assert all(training_messages(rephrase_share=0.0)(t) == task_messages(t) for t in tasks[:20])


def test_tasks_without_the_default_wording_are_never_rephrased():
    given = generate_task("negation_arithmetic", "easy", 1, phrasing="verb")
    fixed = generate_task("negation_arithmetic", "easy", 1, operands=(2, 5))  # its numbers are not the seed's
    build = training_messages(rephrase_share=1.0)
    assert build(given) == task_messages(given)
    assert build(fixed) == task_messages(fixed)


def test_a_share_of_training_prompts_are_worded_freely_and_the_rest_may_be_rephrased():
    tasks = [generate_task(family, "medium", seed) for family in ("negation_arithmetic", "false_claim", "plain_arithmetic")
             for seed in range(200)]
    build = training_messages(wording_share=0.5)
    free = [t for t in tasks if build(t) != task_messages(t)]
    assert 240 <= len(free) <= 360
    assert all(build(t) == task_messages(generate_task(t.family, t.level, t.seed, wording="free")) for t in free)
    both = training_messages(rephrase_share=1.0, wording_share=0.5)
    assert all(both(t) == build(t) for t in free)  # free first; the others are rephrased
    assert sum(both(t) != task_messages(t) for t in tasks) >= 0.97 * len(tasks)  # a free frame can match the template
    adapted = generate_task("rg_basic_arithmetic", "easy", 1)  # no free wording: left as it is
    assert training_messages(wording_share=1.0)(adapted) == task_messages(adapted)
