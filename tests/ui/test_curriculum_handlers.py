"""Curriculum tab handlers on real Services."""
from types import SimpleNamespace

import pytest

from alice_app.curriculum import record_outcome
from alice_app.ui import curriculum

VALID = ("20", "0.8", "0.3", "8", "0.2", "0.8", "0.3")


def test_show_lists_every_family_with_the_saved_config(services):
    rows, summary, *form = curriculum.show(services)
    assert {r[0] for r in rows} >= {"negation_arithmetic", "plain_arithmetic"}
    assert all(r[1] == "easy" for r in rows) and "Window **20**" in summary
    assert tuple(form) == VALID


def test_save_config_validates_with_a_clear_error(services):
    assert "saved" in curriculum.save_config(services, 30, 0.9, 0.2, 10, 0.1, 0.9, 0.5, "")
    assert services.curriculum.load_config().window == 30
    message = curriculum.save_config(services, 30, 0.2, 0.9, 10, 0.1, 0.9, 0.5, "")  # promote below demote
    assert message.startswith("⚠ Not saved") and services.curriculum.load_config().promote_at == 0.9
    assert "“Demote at (accuracy)”" in message and "demote_at" not in message  # bug 6: no code names


@pytest.mark.parametrize("form, expected", [  # bug 6 and issue 14: blank, text, inf, overflow
    ((None, 0.9, 0.2, 10, 0.1, 0.9, 0.5), "Window (answers) is blank"),
    (("", 0.9, 0.2, 10, 0.1, 0.9, 0.5), "Window (answers) is blank"),
    (("ten", 0.9, 0.2, 10, 0.1, 0.9, 0.5), "Window (answers): 'ten' is not a number"),
    ((30, "inf", 0.2, 10, 0.1, 0.9, 0.5), "Promote at (accuracy): 'inf' is not a finite number"),
    (("18446744073709551616", 0.9, 0.2, 10, 0.1, 0.9, 0.5), "Window (answers) must be between 1 and 10,000"),
    ((30, 0.9, 0.2, 10, 0.1, 0.9, "2"), "Hunt/repair mix must be between 0 and 1"),
    ((30, 0.9, 0.2, 50, 0.1, 0.9, 0.5), "“Min samples before moving” must be between 1 and “Window (answers)”"),
])
def test_bad_numbers_are_named_and_nothing_is_saved(services, form, expected):
    message = curriculum.save_config(services, *form, "")
    assert message.startswith("⚠ Not saved") and expected in message
    assert services.curriculum.load_config().window == 20


def test_an_inverted_zone_names_its_two_boxes(services):
    message = curriculum.save_config(services, 30, 0.9, 0.2, 10, 0.9, 0.8, 0.5, "")
    assert message == ("⚠ Not saved: “Discrimination zone, low pass rate” (0.9) must be below "
                       "“Discrimination zone, high pass rate” (0.8).")
    assert services.curriculum.load_config().zone == (0.2, 0.8)


def test_shares_may_be_typed_as_the_summary_writes_them(services):
    assert "saved" in curriculum.save_config(services, "20", "80%", "30%", "8", "20%", "80%", "30%", "")
    config = services.curriculum.load_config()
    assert (config.promote_at, config.demote_at, config.zone, config.repair_mix) == (0.8, 0.3, (0.2, 0.8), 0.3)
    assert "repair mix **30%**" in curriculum.show_table(services)[1]
    message = curriculum.save_config(services, "20", "150%", "30%", "8", "20%", "80%", "30%", "")
    assert "Promote at (accuracy) must be between 0% and 100%, not '150%'" in message


def test_the_save_status_sits_right_under_the_save_button(services):
    import gradio as gr

    with gr.Blocks() as demo:
        curriculum.build(services)
    [save] = [b for b in demo.blocks.values() if isinstance(b, gr.Button) and b.value == "Save settings"]
    below = save.parent.children[save.parent.children.index(save) + 1]
    assert below.elem_id == "curriculum-save-status"


def test_pinning_with_one_answer_says_answer(services):
    config = services.curriculum.load_config()
    services.curriculum.update("false_claim", lambda s: record_outcome(s, True, config))
    assert "its 1 recent answer still counts." in curriculum.pin(services, "false_claim", "easy", "")
    assert "The 1 answer counted at easy no longer applies" in curriculum.pin(services, "false_claim", "hard", "")
    assert curriculum.pin(services, "plain_arithmetic", "easy", "") == (
        "plain_arithmetic pinned at easy: it stays there until unpinned.")


def test_pin_keeps_the_history_at_the_same_level_and_says_when_it_restarts(services):  # bug 6
    config = services.curriculum.load_config()
    services.curriculum.update("false_claim", lambda s: record_outcome(record_outcome(s, True, config), False, config))
    assert "its 2 recent answers still count" in curriculum.pin(services, "false_claim", "easy", "")
    assert services.curriculum.load(["false_claim"])["false_claim"].outcomes == (True, False)
    message = curriculum.pin(services, "false_claim", "hard", "")
    assert "pinned at hard (was easy)" in message and "The 2 answers counted at easy no longer apply" in message
    state = services.curriculum.load(["false_claim"])["false_claim"]
    assert state.pinned == "hard" and state.level == "hard"
    curriculum.unpin(services, "false_claim", "")
    assert services.curriculum.load(["false_claim"])["false_claim"].pinned is None
    assert "Pick a family" in curriculum.pin(services, "no_such_family", "hard", "")


def test_every_curriculum_write_needs_the_admin_password(admin_services):  # issue 14.5
    services = admin_services
    request = SimpleNamespace(client=SimpleNamespace(host="192.0.2.1"))
    assert "admin password" in curriculum.save_config(services, 30, 0.9, 0.2, 10, 0.1, 0.9, 0.5, "no", request)
    assert "admin password" in curriculum.pin(services, "false_claim", "hard", "no", request)
    assert "admin password" in curriculum.unpin(services, "false_claim", "no", request)
    assert services.curriculum.load_config().window == 20
    assert services.curriculum.load(["false_claim"])["false_claim"].pinned is None
    assert "pinned at hard" in curriculum.pin(services, "false_claim", "hard", "pw", request)


def test_reset_needs_confirmation_and_password(admin_services):
    services = admin_services
    curriculum.pin(services, "false_claim", "hard", "pw")
    assert "Tick" in curriculum.reset(services, False, "pw")
    assert "admin password" in curriculum.reset(services, True, "no")
    assert services.curriculum.load(["false_claim"])["false_claim"].level == "hard"
    assert "reset" in curriculum.reset(services, True, "pw")
    assert services.curriculum.load(["false_claim"])["false_claim"].level == "easy"
