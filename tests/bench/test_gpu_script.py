"""bench/gpu.py's CPU side: arguments, the planned commands, and a clear refusal without CUDA."""
import pytest


@pytest.fixture
def gpu(load_script):
    return load_script("bench/gpu.py")


def test_dry_run_prints_both_phases_within_the_budget(gpu, capsys):
    assert gpu.main(["--dry-run", "--out", "/tmp/g"]) == 0
    printed = capsys.readouterr().out
    assert "alice_app train --steps 20 --qlora true" in printed
    assert "learning.py --steps 40" in printed and "num_generations=16" in printed
    plan = gpu.commands(gpu.parse_args([]))
    assert [name for name, _, _ in plan] == ["qlora", "bench"] and sum(s for _, _, s in plan) == 600


def test_the_planned_commands_parse(gpu, load_script):
    """The bench phase's arguments are accepted by bench/learning.py itself (checked without loading)."""
    learning = load_script("bench/learning.py")
    bench_command = gpu.commands(gpu.parse_args([]))[1][1]
    args = learning.parse_args(bench_command[2:])
    assert args.settings["num_generations"] == 16 and args.steps == 40


@pytest.mark.parametrize("argv", [["--generations", "1"], ["--qlora-steps", "0"], ["--budget", "60"]])
def test_bad_arguments_exit_2(gpu, argv, capsys):
    with pytest.raises(SystemExit) as raised:
        gpu.parse_args(argv)
    assert raised.value.code == 2 and "must" in capsys.readouterr().err


def test_without_cuda_it_stops_with_a_clear_message(gpu):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    with pytest.raises(SystemExit, match="needs a CUDA GPU"):
        gpu.main(["--out", "/tmp/g"])
