"""Importing ALICE's training stack on a CPU prints no warning about 4-bit kernels it never uses."""
import subprocess
import sys

import pytest

WARNING = "gemm_4bit_forward"


def _stderr(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300).stderr


def test_the_bitsandbytes_cpu_kernel_warning_is_silenced():
    if WARNING not in _stderr("import peft"):
        pytest.skip("bitsandbytes does not warn on this CPU (no AVX512-BF16 or the kernel is installed)")
    assert WARNING not in _stderr("import alice_app, peft")
