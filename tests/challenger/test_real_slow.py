"""The real path: the embedded SmolLM2 as challenger and solver, real TRL GRPO, a real SQLite file."""
import socket

import pytest

from alice_app.challenger.family import SEED_TEMPLATES, load_catalog
from alice_app.challenger.policy import propose


def test_an_endpoint_that_times_out_degrades_to_no_proposals_with_the_reason():
    from alice_app.models.remote import OpenAIPolicy

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()  # accepts connections, never answers
    port = listener.getsockname()[1]
    try:
        endpoint = OpenAIPolicy(f"http://127.0.0.1:{port}/v1", "silent", timeout=0.5, retries=0)
        batch = propose(endpoint, 2, 0, [p.template for p in SEED_TEMPLATES])
    finally:
        listener.close()
    assert batch.texts == () and "falling back to the template tasks" in batch.error
    assert len(batch.ops) == 2


@pytest.mark.slow
def test_one_tiny_coevolution_round_stores_both_adapters_and_its_figures(model_services, tmp_path):
    from alice_app.challenger.coevolve import CoevolveConfig, run_coevolve

    config = CoevolveConfig(rounds=1, challenger_steps=1, solver_steps=1, num_generations=2, fills=1, k=2,
                            challenger_tokens=32, solver_tokens=16, challenger_warm_start=4)
    result = run_coevolve(model_services, config, tmp_path / "co")
    [figures] = result["rounds"]
    [warm] = [m for m in model_services.runs.metrics(result["run_id"]) if m.get("step") == 0]
    assert warm["challenger_warm_start_kept"] == 4 and warm["challenger_warm_start_steps"] == 1
    assert figures["challenger"]["proposals"] == 2  # one prompt x two generations, all judged
    assert sum(figures["challenger"]["rejections"].values()) + round(
        figures["challenger"]["novelty_rate"] * 2) == 2
    [stored] = model_services.templates.rounds(result["run_id"])
    for role in ("challenger_adapter", "solver_adapter"):
        assert (tmp_path / "co" / "round-1" / role.split("_")[0] / "adapter" / "adapter_config.json").is_file()
        assert stored[role].endswith("adapter")
    assert model_services.runs.get(result["run_id"])["status"] == "completed"
    rejected = model_services.templates.rejection_counts()
    accepted = model_services.templates.accepted()
    assert sum(rejected.values()) + len(accepted) >= 1  # every proposal is accounted for
    load_catalog(model_services.templates)


@pytest.mark.slow
def test_a_duel_of_the_embedded_model_with_itself_gives_two_failure_maps(model_services):
    from alice_app.challenger.duel import duel
    from alice_app.models.factory import build_policy

    policy = build_policy(model_services.settings)
    result = duel(model_services, policy, policy, budget=1, k=2, fills=1)
    for side in result["sides"].values():
        seeds = [r for r in side["failure_map"] if r["source"] == "seed"]
        assert len(seeds) == len(SEED_TEMPLATES)
        assert all(r["n"] == 2 and 0 <= r["pass_rate"] <= 1 for r in seeds)
        assert sum(sum(r["modes"].values()) for r in seeds) == sum(r["n"] - r["passes"] for r in seeds)
    load_catalog(model_services.templates)


@pytest.mark.slow
def test_a_hunt_with_k_samples_reports_tier3_confidence(model_services):
    from alice_app.hunt import run_hunt

    report = run_hunt(model_services.policy, model_services, 2, ["challenger"], batch_size=2, max_tokens=16,
                      samples=3)
    assert len(report.results) == 2
    assert all(r.confidence is not None and 0.0 <= r.confidence <= 1.0 for r in report.results)
    assert all(r.task.family == "challenger" for r in report.results)
