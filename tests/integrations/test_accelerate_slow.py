"""Past one machine, the nearest thing this box allows: `accelerate launch` with two processes
meeting over gloo on the CPU runs TRL's GRPO on ALICE; each rank banks into its own database, and
`bank merge` folds them into one."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]
ROOT = Path(__file__).resolve().parents[2]


def test_accelerate_launch_two_cpu_processes_then_merge_the_banks(embedded_model_dir, tmp_path):
    data = tmp_path / "alice"
    command = [
        # accelerate's own multi-CPU mode (--cpu) needs mpirun, which this box lacks; --multi_gpu runs
        # torch.distributed.run, and the script's --use_cpu makes the ranks meet over gloo on the CPU.
        sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2",
        "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no",
        str(ROOT / "examples" / "trl_grpo.py"),
        "--model_name_or_path", str(embedded_model_dir), "--output_dir", str(tmp_path / "out"),
        "--alice_data_dir", str(data), "--families", "plain_arithmetic", "--dataset_size", "8",
        "--max_steps", "1", "--per_device_train_batch_size", "2", "--num_generations", "2",
        "--max_completion_length", "8", "--use_peft", "--lora_r", "4", "--lora_target_modules", "q_proj", "v_proj",
        "--report_to", "none", "--save_strategy", "no", "--logging_steps", "1", "--use_cpu",
        "--activation_checkpointing", "false",
    ]
    env = {**os.environ, "TRL_EXPERIMENTAL_SILENCE": "1", "OMP_NUM_THREADS": "1"}
    result = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1100)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "rank 0:" in result.stdout and "rank 1:" in result.stdout
    assert (tmp_path / "out" / "adapter_model.safetensors").is_file()
    ranks = sorted(data.glob("alice-rank*.db"))
    assert [p.name for p in ranks] == ["alice-rank0.db", "alice-rank1.db"]

    env_merge = {**os.environ, "ALICE_DATA_DIR": str(data), "ALICE_DB": str(ranks[0])}
    merged = subprocess.run([sys.executable, "-m", "alice_app", "bank", "merge", str(ranks[1])], cwd=ROOT,
                            env=env_merge, capture_output=True, text=True, timeout=300)
    assert merged.returncode == 0 and "the bank now holds" in merged.stderr, merged.stderr
