"""Charts tab handlers against real Services: which run the training charts show, and a bad run id
named in the status line and in the training charts instead of their "no metrics yet" hints."""
import pytest

from alice_app.ui import charts_tab


def annotation(figure) -> str:
    return " ".join(a.text for a in figure.layout.annotations)


def a_run_with_a_step(services) -> int:
    run_id = services.runs.create("grpo", {})
    services.runs.add_metrics(run_id, 1, {"reward": 0.2, "accuracy": 0.5})
    return run_id


def test_a_run_that_does_not_exist_is_named(services):
    a_run_with_a_step(services)
    assert charts_tab.run_status(services, "99").startswith("⚠ there is no run #99")
    figures = charts_tab.figures(services, "99")
    assert len(figures) == 9
    for figure in figures[:4]:  # the training charts say what is wrong, not "start a run"
        assert not figure.data and "there is no run #99" in annotation(figure)
        assert "No training metrics yet" not in annotation(figure)


@pytest.mark.parametrize("typed", ["abc", "-3", "2.5", "1e3"])
def test_text_that_is_not_a_run_id_is_named_and_does_not_fall_back_to_the_newest_run(services, typed):
    a_run_with_a_step(services)
    assert charts_tab.run_status(services, typed).startswith(f"⚠ '{typed}' is not a run id")
    reward = charts_tab.figures(services, typed)[2]
    assert not reward.data and f"'{typed}' is not a run id" in annotation(reward)


def test_a_good_or_blank_run_id_says_which_run_is_shown(services, add_failures):
    add_failures(services, 2)
    first, newest = a_run_with_a_step(services), a_run_with_a_step(services)
    assert charts_tab.run_status(services, str(first)) == f"Training charts: run #{first}."
    assert charts_tab.run_status(services, "") == charts_tab.NEWEST == charts_tab.run_status(services, None)
    figures = charts_tab.figures(services, " ")
    assert list(figures[2].data[0].y) == [0.2] and list(figures[4].data[0].y) == [2]
    assert "⚠" not in charts_tab.run_status(services, newest)


def test_a_bad_run_id_on_a_new_database_still_draws_the_bank_charts(services):
    assert charts_tab.run_status(services, "7").startswith("⚠ there is no run #7")
    figures = charts_tab.figures(services, "7")
    assert "hunt" in annotation(figures[4])  # the bank's own empty state, untouched by the run id
