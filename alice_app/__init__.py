"""ALICE: find, record and repair the reasoning failures of language models."""
import logging

__version__ = "0.1.0"

# peft and trl import bitsandbytes whenever it is installed (it is in requirements.txt, for 4-bit on a GPU). On a CPU
# with AVX512-BF16 its import then warns that an optional CPU 4-bit kernel ("pip install kernels") is missing; ALICE
# never quantizes on a CPU (TrainConfig.qlora applies only with CUDA), so that warning only misleads. Errors still show.
logging.getLogger("bitsandbytes.backends.cpu.ops").setLevel(logging.ERROR)
