"""The Charts tab's penalty figure, from the evaluation a training run stores (with twin rows)."""
from alice_app.ui.charts import penalty_figure


def test_penalty_per_family_before_and_after():
    before = {"false_claim": {"easy": 0.2, "medium": 0.0, "hard": 0.0},
              "false_claim_control": {"easy": 0.8, "medium": 0.6, "hard": 0.1},
              "negation_arithmetic": {"easy": 0.1, "medium": 0.1, "hard": 0.0},
              "plain_arithmetic": {"easy": 0.6, "medium": 0.5, "hard": 0.0}}
    after = {**before, "false_claim": {"easy": 0.8, "medium": 0.5, "hard": 0.1}}
    figure = penalty_figure({"before": before, "after": after})
    bars = {bar.name: dict(zip(bar.x, bar.y)) for bar in figure.data}
    assert bars["before"] == {"false_claim": 0.6, "negation_arithmetic": 0.45}
    assert round(bars["after"]["false_claim"], 4) == 0.05


def test_no_twin_rows_give_an_empty_state():
    figure = penalty_figure({"before": {"plain_arithmetic": {"easy": 0.5}}})
    assert not figure.data and "control twin" in str(figure.layout.annotations[0].text)
