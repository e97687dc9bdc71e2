import pytest

from alice_app.config import EMBEDDED_MODEL, Settings
from alice_app.models.factory import adapter_name, build_oracle, build_policy
from alice_app.models.loader import (
    ModelNotFoundError,
    embedded_gguf_path,
    load_causal_lm,
    resolve_model_source,
)
from alice_app.models.oracle import ApiOracle
from alice_app.models.remote import OpenAIPolicy
from alice_app.verify.oracle import NoOracle


def test_remote_policy_when_api_base_url_is_set():
    policy = build_policy(Settings(api_base_url="http://127.0.0.1:1/v1", model_name="m", hf_token="t"))
    assert isinstance(policy, OpenAIPolicy)
    assert policy.url == "http://127.0.0.1:1/v1/chat/completions" and policy.model_id == "m"


def test_remote_policy_needs_a_model_name():
    with pytest.raises(ValueError, match="set MODEL_NAME"):
        build_policy(Settings(api_base_url="http://127.0.0.1:1/v1", model_name=EMBEDDED_MODEL))


def test_adapter_needs_a_local_model():
    with pytest.raises(ValueError, match="--adapter needs a local model"):
        build_policy(Settings(api_base_url="http://127.0.0.1:1/v1", model_name="m"), adapter="x")


def test_oracle_backends():
    assert isinstance(build_oracle(Settings()), NoOracle)
    with pytest.raises(ValueError, match="needs API_BASE_URL"):
        build_oracle(Settings(oracle="api"))
    oracle = build_oracle(Settings(oracle="api", api_base_url="http://127.0.0.1:1/v1", model_name="p",
                                   oracle_model="judge"))
    assert isinstance(oracle, ApiOracle) and oracle.name == "api:judge"


def test_embedded_gguf_ships_with_the_package():
    path = embedded_gguf_path()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and path.stat().st_size > 50_000_000


def test_missing_local_model_names_what_was_tried(tmp_path):
    missing = tmp_path / "no-such-model"
    with pytest.raises(ModelNotFoundError, match=f"tried: local path {missing} \\(does not exist\\)"):
        load_causal_lm(Settings(model_name=str(missing)))


def test_hub_ids_and_local_folders_resolve(tmp_path):
    assert resolve_model_source(Settings(model_name=str(tmp_path)))[0] == str(tmp_path)
    source, extra, tried = resolve_model_source(Settings(model_name="Qwen/Qwen2.5-7B-Instruct"))
    assert source == "Qwen/Qwen2.5-7B-Instruct" and extra == {}
    assert tried[-1] == "Hugging Face model id 'Qwen/Qwen2.5-7B-Instruct'"
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF")
    assert resolve_model_source(Settings(model_name=str(gguf)))[:2] == (str(tmp_path), {"gguf_file": "m.gguf"})


def test_consistency_needs_real_sampling():
    from alice_app.models.consistency import draw_samples

    with pytest.raises(ValueError, match="at least 2 samples"):
        draw_samples(None, [], k=1)
    with pytest.raises(ValueError, match="temperature above 0"):
        draw_samples(None, [], k=3, temperature=0.0)


def test_unwritable_models_dir_is_a_clear_error(tmp_path):
    from alice_app.models.loader import ensure_embedded_checkpoint

    blocker = tmp_path / "data"
    blocker.write_text("a file where the data folder should be")
    with pytest.raises(ModelNotFoundError, match="set ALICE_DATA_DIR to a writable folder"):
        ensure_embedded_checkpoint(blocker / "models")


def test_a_runs_adapter_is_named_by_its_run_folder():
    assert adapter_name("data/runs/run-7/adapter") == "run-7/adapter"
    assert adapter_name("adapter") == "adapter"
