import json

from alice_app.ui import charts

METRICS = [{"step": s, "reward": 0.1 * s, "accuracy": 0.2 * s, "frac_reward_zero_std": 1 - 0.25 * s} for s in (1, 2, 3)]


def annotation(figure) -> str:
    return " ".join(a.text for a in figure.layout.annotations)


def test_reward_accuracy_plots_both_series():
    figure = charts.reward_accuracy_figure(METRICS)
    assert [t.name for t in figure.data] == ["reward", "accuracy"]
    assert list(figure.data[1].y) == [0.2, 0.4, 0.6000000000000001]
    json.loads(figure.to_json())  # what gr.Plot sends must serialise


def test_metrics_nested_under_metrics_key_are_read():
    figure = charts.zero_std_figure([{"step": 4, "metrics": {"frac_reward_zero_std": 0.5}}])
    assert list(figure.data[0].x) == [4] and list(figure.data[0].y) == [0.5]


def test_groups_that_teach_nothing_plot_both_measures():
    figure = charts.zero_std_figure([{"step": 1, "metrics": {"frac_outcome_uniform": 0.75, "frac_reward_zero_std": 0.0}}])
    assert [(t.name, list(t.y)) for t in figure.data] == [("frac_outcome_uniform", [0.75]),
                                                         ("frac_reward_zero_std", [0.0])]
    live = charts.live_training_figure([{"step": 1, "metrics": {"reward": 0.2, "frac_outcome_uniform": 0.5}}])
    assert "frac_outcome_uniform" in [t.name for t in live.data]


def test_empty_states_say_how_to_fill_them():
    assert "Training tab" in annotation(charts.reward_accuracy_figure([]))
    assert "GRPO" in annotation(charts.zero_std_figure([{"step": 1, "reward": 1.0}]))
    assert "hunt" in annotation(charts.counts_figure({}, "Failures by family"))
    assert "attempts" in annotation(charts.failure_map_figure([]))
    assert "curriculum" in annotation(charts.curriculum_figure([])).lower()
    assert "evaluation" in annotation(charts.before_after_figure({}))
    assert not charts.reward_accuracy_figure([]).data


def test_counts_sorted_descending():
    figure = charts.counts_figure({"a": 1, "b": 5, "c": 3}, "t")
    assert list(figure.data[0].x) == ["b", "c", "a"] and list(figure.data[0].y) == [5, 3, 1]


def test_failure_rate_grid_orders_levels_and_leaves_gaps():
    cells = [{"family": "neg", "level": "hard", "failures": 3, "attempts": 4},
             {"family": "neg", "level": "easy", "failures": 1, "attempts": 4},
             {"family": "plain", "level": "easy", "failures": 0, "attempts": 0}]
    families, levels, grid = charts.failure_rate_grid(cells)
    assert families == ["neg", "plain"] and levels == ["easy", "hard"]
    assert grid == [[0.25, 0.75], [None, None]]
    figure = charts.failure_map_figure(cells)
    assert figure.data[0].type == "heatmap" and figure.data[0].text[0][1] == "75%"


def test_failure_rate_caps_at_one():
    # failures are deduplicated rows while attempts count episodes; a rate never exceeds 100%
    assert charts.failure_rate_grid([{"family": "f", "level": "easy", "failures": 9, "attempts": 3}])[2] == [[1.0]]


def test_curriculum_figure_maps_levels_to_steps():
    history = [{"ts": "2026-11-30T09:00:00Z", "family": "neg", "level": "easy", "accuracy": 0.9},
               {"ts": "2026-11-30T09:05:00Z", "family": "neg", "level": "medium", "accuracy": None}]
    figure = charts.curriculum_figure(history)
    assert list(figure.data[0].y) == [0, 1] and figure.data[0].name == "neg"


def test_before_after_groups_family_means():
    evals = {"before": {"neg": {"easy": 0.0, "hard": 0.2}}, "after": {"neg": {"easy": 0.8, "hard": 0.4}}}
    figure = charts.before_after_figure(evals)
    assert [t.name for t in figure.data] == ["before", "after"]
    assert list(figure.data[0].y) == [0.1] and abs(figure.data[1].y[0] - 0.6) < 1e-9


def every_figure():
    """Each builder, empty and with data."""
    cells = [{"family": "neg", "level": "easy", "failures": 1, "attempts": 2}]
    modes = [{"family": "neg", "mode": "distractor_echo", "n": 2}, {"family": "neg", "mode": "operator_confusion", "n": 1}]
    evals = {"before": {"neg": {"easy": 0.1}}, "after": {"neg": {"easy": 0.6}}}
    history = [{"ts": "2026-11-30T09:00:00Z", "family": "neg", "level": "easy"}]
    built = [charts.reward_accuracy_figure(METRICS), charts.zero_std_figure(METRICS), charts.live_training_figure(METRICS),
             charts.counts_figure({"a": 2}, "Failures by family"), charts.failure_map_figure(cells),
             charts.failure_mode_map_figure(modes), charts.curriculum_figure(history), charts.before_after_figure(evals),
             charts.before_after_heatmap(evals), charts.penalty_figure({})]
    empty = [charts.reward_accuracy_figure([]), charts.counts_figure({}, "t"), charts.failure_map_figure([]),
             charts.failure_mode_map_figure([]), charts.curriculum_figure([]), charts.before_after_figure({})]
    return built + empty


MODEBAR_PX, TITLE_PX, SLANTED_LABELS_PX = 25, 25, 45  # measured in Chromium: bar height, one title line, mode names


def test_titles_sit_below_the_mode_bar_with_room_above_the_plot():
    """Bug: the mode bar covered every title on a phone, and the mode map's top labels its title."""
    for figure in every_figure():
        title, margin = figure.layout.title, figure.layout.margin
        assert title.text and title.yref == "container" and title.y == 1 and title.yanchor == "top", title
        assert title.pad.t >= MODEBAR_PX, title.text
        assert margin.t >= title.pad.t + TITLE_PX, title.text
        assert {"select2d", "lasso2d"} <= set(figure.layout.modebar.remove), title.text  # a bar of one short row


def test_the_mode_map_leaves_room_for_its_labels_above_the_plot():
    figure = charts.failure_mode_map_figure([{"family": "neg", "mode": "operator_confusion", "n": 1}])
    assert figure.layout.xaxis.side == "top"
    assert figure.layout.margin.t >= figure.layout.title.pad.t + TITLE_PX + SLANTED_LABELS_PX
