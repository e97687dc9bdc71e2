"""Services on a real temporary database: cheap to build, heavy parts only on first use."""
import subprocess
import sys
import textwrap

import pytest

from alice_app.environment import AliceEnvironment
from alice_app.services import LazyOracle, Services
from alice_app.tasks import generate_task
from alice_app.verify.oracle import NoOracle, OracleError


def test_from_settings_opens_the_database_and_wires_the_stores(settings):
    services = Services.from_settings(settings)
    assert settings.db_path.exists()
    assert isinstance(services.oracle, NoOracle) and services.loaded_policy is None
    env = services.new_environment(seed=1)
    assert isinstance(env, AliceEnvironment) and env is not services.new_environment()
    env.reset(seed=2, family="negation_arithmetic", level="easy", mode="hunt")
    for _ in range(5):
        env.step("Answer: 99999")
    assert services.bank.count() == 1 and services.curriculum.history()
    assert services.runs.list() == []
    services.close()


def test_environments_from_one_services_share_the_bank_but_not_episodes(settings):
    services = Services.from_settings(settings)
    a, b = services.new_environment(), services.new_environment()
    a.reset(seed=1, family="false_claim", level="easy", mode="hunt")
    b.reset(seed=2, family="false_claim", level="easy", mode="hunt")
    for _ in range(5):
        a.step("Answer: 99999")
    assert b.state["turn"] == 0 and services.bank.count() == 1
    services.close()


def test_creating_services_is_fast_and_never_imports_torch(settings):
    code = textwrap.dedent(f"""
        import sys, time
        start = time.perf_counter()
        from alice_app.config import Settings
        from alice_app.services import Services
        services = Services.from_settings(Settings(data_dir={str(settings.data_dir)!r}, db_path={str(settings.db_path)!r}))
        services.new_environment().reset(mode="hunt")
        print(time.perf_counter() - start, "torch" in sys.modules, "transformers" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    seconds, torch_loaded, transformers_loaded = out.stdout.split()
    assert torch_loaded == "False" and transformers_loaded == "False"
    assert float(seconds) < 10  # typically ~1 s; generous for a loaded 2-core CI box


def test_the_policy_is_built_on_first_use_only(settings):
    remote = settings.with_overrides(api_base_url="http://127.0.0.1:9/v1", model_name="some-model")
    services = Services.from_settings(remote)
    assert services.loaded_policy is None
    policy = services.policy
    assert policy is services.policy and services.loaded_policy is policy
    assert policy.model_id == "some-model"
    services.use_policy(sentinel := object())
    assert services.policy is sentinel
    services.close()


def test_an_api_oracle_without_an_endpoint_is_a_clear_error(settings):
    with pytest.raises(ValueError, match="API_BASE_URL"):
        Services.from_settings(settings.with_overrides(oracle="api"))


def test_a_local_oracle_loads_lazily_and_a_load_failure_degrades_to_tier_1(settings, monkeypatch):
    services = Services.from_settings(settings.with_overrides(oracle="local", oracle_model="/no/such/model"))
    assert isinstance(services.oracle, LazyOracle)

    calls = []

    def broken(*args, **kwargs):  # stands in for a model that cannot be loaded
        calls.append(1)
        raise FileNotFoundError("/no/such/model")

    monkeypatch.setattr("alice_app.models.factory.build_oracle", broken)
    with pytest.raises(OracleError, match="could not be loaded"):
        services.oracle.judge(generate_task("negation_arithmetic", "easy", 1), "seven-ish")
    verdict = services.verifier.verify(generate_task("negation_arithmetic", "easy", 1), "no number here")
    assert verdict.tier == 1 and verdict.is_correct is False and "could not be loaded" in verdict.details["degraded"]
    assert len(calls) == 1  # the failed load is remembered, not retried per verdict
    services.close()


def test_training_is_created_on_first_use(settings):
    from alice_app.training.job import TrainingJob

    services = Services.from_settings(settings)
    job = services.training
    assert isinstance(job, TrainingJob) and job is services.training and job.services is services
    services.close()


def test_the_training_model_box_is_checked_before_start(settings, tmp_path, monkeypatch):
    from alice_app.services import check_training_model

    assert check_training_model(settings, "") == "" and check_training_model(settings, settings.model_name) == ""
    folder = tmp_path / "my-model"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    assert check_training_model(settings, str(folder)) == str(folder)
    with pytest.raises(ValueError, match="neither a local model folder"):
        check_training_model(settings, str(tmp_path / "missing"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ValueError, match="not in the local Hugging Face cache"):
        check_training_model(settings, "nobody/not-a-cached-model")
    endpoint = settings.with_overrides(api_base_url="http://127.0.0.1:9/v1", model_name="served")
    with pytest.raises(ValueError, match="needs local weights"):
        check_training_model(endpoint, "")


def test_sampled_answers_give_an_environment_turn_its_tier3_verdict(services, fixed_samples):
    task = generate_task("negation_arithmetic", "easy", 5)
    services.use_policy(fixed_samples([f"Answer: {task.answer}", "Answer: 0", "Answer: 1", "Answer: 2"]))
    env = services.new_environment()
    obs = env.reset(task=task)
    samples = services.sample_answers(obs.messages, k=4)
    assert len(samples) == 4
    verdict = env.step(f"Answer: {task.answer}", samples=samples).verdict
    assert verdict["is_correct"] and verdict["tier"] == 3 and verdict["details"]["unstable"]
    assert verdict["details"]["consistency"]["samples"] == 4 and verdict["confidence"] < 0.5
    assert [row["mode"] for row in services.bank.query(page_size=5).rows] == ["unstable"]


def test_trained_adapters_lists_completed_runs_whose_adapter_is_on_disk(services, tmp_path):
    from alice_app.services import trained_adapters

    def run(status, folder, with_config=True):
        folder.mkdir(parents=True, exist_ok=True)
        if with_config:
            (folder / "adapter_config.json").write_text("{}")
        run_id = services.runs.create("grpo", {"steps": 7})
        services.runs.set_checkpoint(run_id, str(folder))
        services.runs.set_status(run_id, status)
        return run_id

    older = run("completed", tmp_path / "a")
    run("stopped", tmp_path / "b")  # a stopped run's checkpoint is not offered
    run("completed", tmp_path / "c", with_config=False)  # a folder without an adapter (deleted, or never saved)
    newer = run("completed", tmp_path / "d")
    assert trained_adapters(services) == [(f"run #{newer}'s adapter (grpo, 7 steps)", str(tmp_path / "d")),
                                          (f"run #{older}'s adapter (grpo, 7 steps)", str(tmp_path / "a"))]
