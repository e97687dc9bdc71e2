import json

from alice_app.tasks.registry import generate_task
from alice_app.training.rewards import completion_text, group_results, make_reward_function
from alice_app.verify.stack import VerifierStack


def _columns(tasks, k):
    return [json.dumps(t.to_dict()) for t in tasks for _ in range(k)]


def test_correct_completions_outscore_wrong_ones_and_groups_reach_the_observer():
    task_a = generate_task("negation_arithmetic", "easy", 1)
    task_b = generate_task("plain_arithmetic", "easy", 2)
    wrong_a = str(int(task_a.answer) + 1)
    completions = [f"Answer: {task_a.answer}", f"Answer: {wrong_a}", f"Answer: {task_b.answer}", "no idea"]
    groups, logged = [], {}
    reward = make_reward_function(VerifierStack(), observer=groups.extend)
    rewards = reward(completions, task=_columns([task_a, task_b], 2), source=["hunt"] * 4, failure_id=[-1] * 4,
                     log_metric=lambda name, value: logged.__setitem__(name, value))
    assert rewards[0] > rewards[1] and rewards[2] > rewards[3]
    assert logged["accuracy"] == 0.5
    assert logged["frac_outcome_uniform"] == 0.0  # both groups had one right and one wrong
    assert [(g.task.id, g.passes, len(g.verdicts), g.source) for g in groups] == [
        (task_a.id, 1, 2, "hunt"), (task_b.id, 1, 2, "hunt")]
    assert groups[0].failure_id is None


def test_chat_completions_and_episode_turns_are_understood():
    task = generate_task("negation_arithmetic", "easy", 3)
    chat = [[{"role": "assistant", "content": f"Answer: {task.answer}"}]] * 2
    reward = make_reward_function(VerifierStack())
    first = reward(chat, task=_columns([task], 2))
    final = reward(chat, task=_columns([task], 2), turn_index=[5, 5], previous_answers=['["3"]'] * 2)
    assert first[0] > final[0] > 0.5  # solving later earns less, but correct still dominates


def test_completion_text_accepts_every_shape_trl_uses():
    assert completion_text("Answer: 3") == "Answer: 3"
    assert completion_text([{"role": "assistant", "content": "4"}]) == "4"
    assert completion_text([]) == ""


def test_group_results_keep_order_and_failure_ids():
    tasks = [generate_task("false_claim", "easy", s) for s in (1, 1, 2, 2)]
    verifier = VerifierStack()
    verdicts = [verifier.verify(t, "Answer: 0") for t in tasks]
    groups = group_results(tasks, ["Answer: 0"] * 4, verdicts,
                           {"source": ["repair"] * 4, "failure_id": [7, 7, -1, -1]})
    assert [g.task.seed for g in groups] == [1, 2]
    assert [g.failure_id for g in groups] == [7, None]


def test_consistency_penalty_hits_replies_that_contradict_their_own_sum():
    import json as _json

    from alice_app.tasks import generate_task
    from alice_app.training.rewards import make_reward_function
    from alice_app.verify.stack import VerifierStack

    task = generate_task("plain_arithmetic", "easy", 0, template="add", operands=(6, 6))
    column = [_json.dumps(task.to_dict())] * 2
    replies = ["6 + 6 = 12 The answer is 6", "6 + 6 = 12\nAnswer: 12"]
    plain = make_reward_function(VerifierStack())(replies, column)
    strict = make_reward_function(VerifierStack(), consistency_penalty=0.5)(replies, column)
    assert strict[0] == plain[0] - 0.5 and strict[1] == plain[1]


def test_groups_with_one_outcome_are_counted_although_their_rewards_differ():
    task_a = generate_task("negation_arithmetic", "easy", 1)
    task_b = generate_task("plain_arithmetic", "easy", 2)
    wrong = str(int(task_a.answer) + 1)
    # group a: both wrong, one in the asked format (rewards 0.1 and 0): TRL's zero-std misses it
    completions = [f"Answer: {wrong}", f"maybe {wrong}", f"Answer: {task_b.answer}", "no idea"]
    logged = {}
    rewards = make_reward_function(VerifierStack())(completions, task=_columns([task_a, task_b], 2),
                                                    log_metric=lambda name, value: logged.__setitem__(name, value))
    assert rewards[0] != rewards[1]
    assert logged["frac_outcome_uniform"] == 0.5
    assert not any(name.startswith(("groups_", "uniform_")) for name in logged)  # no feed source: nothing per source


def test_each_feed_sources_share_of_groups_and_of_one_outcome_groups_is_logged():
    tasks = [generate_task("plain_arithmetic", "easy", seed) for seed in (1, 2, 3)]
    # a zone replay all right, a hunt mixed, a hunt all wrong
    completions = [f"Answer: {tasks[0].answer}"] * 2 + [f"Answer: {tasks[1].answer}", "no idea", "no", "idea"]
    logged = {}
    make_reward_function(VerifierStack())(completions, task=_columns(tasks, 2),
                                          source=["zone"] * 2 + ["hunt"] * 4, failure_id=[-1] * 6,
                                          log_metric=lambda name, value: logged.__setitem__(name, value))
    assert logged["groups_zone"] == 1 / 3 and logged["groups_hunt"] == 2 / 3 and logged["groups_repair"] == 0
    assert logged["uniform_zone"] == 1.0 and logged["uniform_hunt"] == 0.5
    assert "uniform_repair" not in logged  # a share of no groups is not 0: it is not logged


def test_the_working_bonus_credits_computing_with_the_tasks_own_operands_right_or_wrong():
    task = generate_task("false_claim", "easy", 1)
    a, b = task.metadata["operands"]
    claimed = task.metadata["distractors"][0]
    replies = [f"{a} {'-' if task.metadata['template'] == 'sub' else '+'} {b} = 99\nAnswer: 99",
               f"{claimed} + {b} = 99\nAnswer: 99", f"Answer: {task.answer}"]
    logged = {}
    plain = make_reward_function(VerifierStack())(replies, task=_columns([task], 3))
    bonus = make_reward_function(VerifierStack(), working_bonus=0.25)(
        replies, task=_columns([task], 3), log_metric=lambda name, value: logged.__setitem__(name, value))
    assert [round(b - p, 6) for b, p in zip(bonus, plain)] == [0.25, 0.0, 0.0]
    assert bonus[2] > bonus[0]  # the right answer still beats the right operands with a wrong sum
    assert logged["own_operands"] == 1 / 3
    comparison = generate_task("negated_comparison", "easy", 1)  # not an expression over operands: no bonus
    numbers = comparison.metadata["operands"]
    reply = [f"{numbers[0]} - {numbers[1]} = 1"]
    assert make_reward_function(VerifierStack(), working_bonus=0.25)(reply, task=_columns([comparison], 1)) == \
        make_reward_function(VerifierStack())(reply, task=_columns([comparison], 1))


def test_the_echo_penalty_hits_a_wrong_answer_copied_from_the_prompt_only():
    task = generate_task("false_claim", "easy", 1)
    claimed = task.metadata["distractors"][0]
    assert str(claimed) != task.answer
    replies = [f"Answer: {claimed}", "Answer: 99999", f"Answer: {task.answer}"]
    logged = {}
    plain = make_reward_function(VerifierStack())(replies, task=_columns([task], 3))
    strict = make_reward_function(VerifierStack(), echo_penalty=0.5)(
        replies, task=_columns([task], 3), log_metric=lambda name, value: logged.__setitem__(name, value))
    assert [round(s - p, 6) for s, p in zip(strict, plain)] == [-0.5, 0.0, 0.0]
    assert strict[1] > strict[0]  # an all-wrong group now prefers the reply that did not copy
    assert logged["echo"] == 1 / 3
