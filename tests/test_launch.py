"""`dp2ddp launch`: the rendered scripts, run against stand-in torchrun/srun/scontrol.

The stand-ins print the arguments they receive, so these tests check what the scripts
really execute (quoting included) without starting torchrun; tests/test_multinode.py runs
the multi-node script with the real torchrun.
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from dp2ddp.cli import main
from dp2ddp.launch.scripts import (
    LaunchError,
    LaunchPlan,
    default_launch_commands,
    render_script,
    torchrun_command,
)

ECHO_ARGS = (
    '#!/usr/bin/env bash\necho "{name} MASTER_ADDR=${{MASTER_ADDR:-}}"\nprintf "%s\\n" "$@"\n'
)


def _stub(bin_dir: Path, name: str, body: str | None = None) -> None:
    path = bin_dir / name
    path.write_text(body if body is not None else ECHO_ARGS.format(name=name))
    path.chmod(0o755)


def _run(script: str, tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run a rendered script with stand-ins first on PATH; returns the finished process."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name in ("torchrun", "srun"):
        _stub(bin_dir, name)
    _stub(bin_dir, "scontrol", '#!/usr/bin/env bash\nprintf "gpu-a17\\ngpu-a18\\n"\n')
    _stub(bin_dir, "python", "#!/usr/bin/env bash\necho 3\n")  # "3 GPUs visible"
    path = tmp_path / "launch.sh"
    path.write_text(script)
    base = {k: v for k, v in os.environ.items() if not k.startswith(("MASTER_", "NPROC_"))}
    base["PATH"] = f"{bin_dir}{os.pathsep}/usr/bin:/bin"
    return subprocess.run(
        ["/bin/bash", str(path), *args],
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=30,
        cwd=tmp_path,
    )


def _argv(proc: subprocess.CompletedProcess[str]) -> list[str]:
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()[1:]


# -- single node ---------------------------------------------------------------------------
def test_single_node_with_gpu_count(tmp_path: Path) -> None:
    script = render_script(LaunchPlan("train.py", ("--lr", "0.1"), gpus_per_node=4))
    assert script.startswith("#!/usr/bin/env bash\n")
    assert "set -euo pipefail" in script
    assert "exec torchrun --standalone --nproc_per_node=4 train.py --lr 0.1" in script
    assert _argv(_run(script, tmp_path, "--epochs", "2")) == [
        "--standalone",
        "--nproc_per_node=4",
        "train.py",
        "--lr",
        "0.1",
        "--epochs",
        "2",
    ]


def test_single_node_detects_gpus_where_it_runs(tmp_path: Path) -> None:
    script = render_script(LaunchPlan("train.py"))
    assert _argv(_run(script, tmp_path))[:2] == ["--standalone", "--nproc_per_node=3"]
    overridden = _run(script, tmp_path, NPROC_PER_NODE="2")
    assert _argv(overridden)[1] == "--nproc_per_node=2"


def test_arguments_are_quoted_for_the_shell(tmp_path: Path) -> None:
    nasty = ("a b", "$(touch pwned)", "it's", "*", "--x=`id`", "", "line\nbreak")
    script = render_script(LaunchPlan("my dir/train $1.py", nasty, gpus_per_node=1))
    argv = _argv(_run(script, tmp_path))
    # printf prints one line per argument; the embedded newline splits one into two lines.
    assert argv == [
        "--standalone",
        "--nproc_per_node=1",
        "my dir/train $1.py",
        *nasty[:-1],
        "line",
        "break",
    ]
    assert not (tmp_path / "pwned").exists()


# -- multi node ----------------------------------------------------------------------------
def test_multi_node_uses_c10d_rendezvous(tmp_path: Path) -> None:
    script = render_script(LaunchPlan("train.py", ("--bs", "64"), nodes=4, gpus_per_node=8))
    argv = _argv(_run(script, tmp_path, MASTER_ADDR="10.0.0.1"))
    assert argv == [
        "--nnodes=4",
        "--nproc_per_node=8",
        "--rdzv-backend=c10d",
        "--rdzv-endpoint=10.0.0.1:29500",
        "--rdzv-id=train",
        "train.py",
        "--bs",
        "64",
    ]
    custom = _run(script, tmp_path, MASTER_ADDR="head", MASTER_PORT="6000", RDZV_ID="run7")
    assert _argv(custom)[3:5] == ["--rdzv-endpoint=head:6000", "--rdzv-id=run7"]


def test_multi_node_port_option(tmp_path: Path) -> None:
    script = render_script(LaunchPlan("train.py", nodes=2, gpus_per_node=1, port=12345))
    assert _argv(_run(script, tmp_path, MASTER_ADDR="h"))[3] == "--rdzv-endpoint=h:12345"


def test_multi_node_without_master_addr_is_a_clear_error(tmp_path: Path) -> None:
    proc = _run(render_script(LaunchPlan("train.py", nodes=2)), tmp_path)
    assert proc.returncode == 2
    assert proc.stdout == ""  # torchrun never started
    assert "MASTER_ADDR is not set" in proc.stderr


# -- slurm ---------------------------------------------------------------------------------
def test_slurm_script(tmp_path: Path) -> None:
    script = render_script(LaunchPlan("train.py", ("--epochs", "3"), 2, 8, slurm=True))
    header = [line for line in script.splitlines() if line.startswith("#SBATCH")]
    assert header == [
        "#SBATCH --job-name=train",
        "#SBATCH --nodes=2",
        "#SBATCH --ntasks-per-node=1",
        "#SBATCH --gpus-per-node=8",
    ]
    assert 'scontrol show hostnames "$SLURM_JOB_NODELIST"' in script
    proc = _run(script, tmp_path, SLURM_JOB_NODELIST="gpu-a[17-18]", SLURM_JOB_ID="4242")
    assert proc.stdout.splitlines()[0] == "srun MASTER_ADDR=gpu-a17"
    assert _argv(proc) == [
        "--kill-on-bad-exit=1",
        "torchrun",
        "--nnodes=2",
        "--nproc_per_node=8",
        "--rdzv-backend=c10d",
        "--rdzv-endpoint=gpu-a17:29500",
        "--rdzv-id=4242",
        "train.py",
        "--epochs",
        "3",
    ]


def test_slurm_single_node_still_uses_the_allocation_head(tmp_path: Path) -> None:
    script = render_script(LaunchPlan("run.py", nodes=1, gpus_per_node=2, slurm=True, port=7))
    assert "#SBATCH --nodes=1" in script
    proc = _run(script, tmp_path, SLURM_JOB_NODELIST="x", SLURM_JOB_ID="1")
    assert "--rdzv-endpoint=gpu-a17:7" in _argv(proc)


# -- validation and the one-line commands -----------------------------------------------------
@pytest.mark.parametrize(
    ("plan", "message"),
    [
        (LaunchPlan("t.py", nodes=0), "--nodes"),
        (LaunchPlan("t.py", gpus_per_node=0), "--gpus-per-node"),
        (LaunchPlan("t.py", nodes=2, port=70000), "--port"),
        (LaunchPlan("t.py", nodes=2, slurm=True), "--slurm needs --gpus-per-node"),
        (LaunchPlan("t.py", port=1234), "--port is for multi-node"),
        (LaunchPlan("a\nb.py"), "script path"),
    ],
)
def test_invalid_plans(plan: LaunchPlan, message: str) -> None:
    with pytest.raises(LaunchError, match=message):
        render_script(plan)


def test_torchrun_command_lines() -> None:
    assert torchrun_command(LaunchPlan("a b.py", ("-x",), gpus_per_node=2)) == (
        "torchrun --standalone --nproc_per_node=2 'a b.py' -x"
    )
    assert default_launch_commands(["train.py"]) == [
        "torchrun --standalone --nproc_per_node=auto train.py"
    ]
    assert torchrun_command(LaunchPlan("t.py", nodes=2, gpus_per_node=4, slurm=True)) == (
        "srun torchrun --nnodes=2 --nproc_per_node=4 --rdzv-backend=c10d "
        '--rdzv-endpoint="$MASTER_ADDR:$MASTER_PORT" --rdzv-id="$SLURM_JOB_ID" t.py'
    )


def test_job_name_is_sanitised() -> None:
    assert LaunchPlan("dir/My Train!.py").job_name == "My-Train"
    assert LaunchPlan("$().py").job_name == "train"


# -- the command ---------------------------------------------------------------------------------
def test_cli_prints_to_stdout() -> None:
    result = CliRunner().invoke(
        main, ["launch", "missing.py", "--gpus-per-node", "2", "--", "--lr", "1e-3"]
    )
    assert result.exit_code == 0, result.output
    assert "torchrun --standalone --nproc_per_node=2 missing.py --lr 1e-3" in result.stdout
    assert "does not exist here" in result.stderr


def test_cli_writes_an_executable_file(tmp_path: Path) -> None:
    train = tmp_path / "train.py"
    train.write_text("import torch\n\nmodel = torch.nn.DataParallel(torch.nn.Linear(2, 2))\n")
    out = tmp_path / "train.sbatch"
    result = CliRunner().invoke(
        main,
        ["launch", str(train), "--nodes", "2", "--gpus-per-node", "4", "--slurm", "-o", str(out)],
    )
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert f"sbatch {out}" in result.stderr
    assert "still uses DataParallel" in result.stderr  # not migrated yet
    assert out.stat().st_mode & stat.S_IXUSR
    assert out.read_text() == render_script(
        LaunchPlan(str(train), nodes=2, gpus_per_node=4, slurm=True)
    )


def test_cli_usage_errors() -> None:
    result = CliRunner().invoke(main, ["launch", "train.py", "--slurm"])
    assert result.exit_code == 2
    assert "--slurm needs --gpus-per-node" in result.output


@pytest.mark.parametrize(
    "plan",
    [
        LaunchPlan("train.py"),
        LaunchPlan("train.py", nodes=3),
        LaunchPlan("train.py", nodes=3, gpus_per_node=2, slurm=True),
    ],
)
def test_scripts_are_valid_bash(plan: LaunchPlan, tmp_path: Path) -> None:
    path = tmp_path / "s.sh"
    path.write_text(render_script(plan))
    subprocess.run(["/bin/bash", "-n", str(path)], check=True, timeout=30)


# -- the line `migrate` prints runs where it is printed --------------------------------------------
TINY = """\
import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def main():
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    data = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
    loader = DataLoader(data, batch_size=8, shuffle=True)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    print("world", os.environ.get("WORLD_SIZE"), "final", round(loss.item(), 3))


if __name__ == "__main__":
    main()
"""


@pytest.mark.e2e
def test_printed_launch_line_runs_as_printed_without_cuda(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`torchrun --nproc_per_node=gpu` raises "Cuda is not available" on a laptop; the line
    `migrate` prints must run there as it is printed (the shell, the current folder)."""
    import shlex
    import sys

    from dp2ddp.verify.toend import torchrun_console_shows_known_abort

    (tmp_path / "train.py").write_text(TINY)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["migrate", "train.py"], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    (line,) = [x.strip() for x in result.stderr.splitlines() if x.startswith("  torchrun ")]
    assert shlex.split(line)[-1] == "train.py"
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK")}
    env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), env.get("PATH", "")])
    env.update(OMP_NUM_THREADS="1", CUDA_VISIBLE_DEVICES="")  # a machine without CUDA

    def two_cores() -> None:  # `auto` starts one process a core: keep the test small anywhere
        if hasattr(os, "sched_setaffinity"):
            os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:2])

    done = subprocess.run(
        line,
        shell=True,
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=two_cores,
    )
    console = done.stdout + done.stderr
    finals = [x for x in done.stdout.splitlines() if x.startswith("world ")]
    assert len(finals) == 1, console[-4000:]  # rank 0 prints, once
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    assert int(finals[0].split()[1]) == min(2, cores) or not hasattr(os, "sched_getaffinity")
    if done.returncode != 0:  # torch 2.13's abort at exit, after every rank finished
        assert torchrun_console_shows_known_abort(console, "train.py"), console[-4000:]
