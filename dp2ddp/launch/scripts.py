"""Render torchrun launch scripts (single node, multi-node, Slurm) from templates/launch/.

Pure text in, text out: the `launch` command does the file I/O. Every value that reaches
the shell is quoted with shlex.quote, so script paths and arguments with spaces or `$` are
passed through literally.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath

#: The default rendezvous port of multi-node launches (torchrun's own default).
DEFAULT_PORT = 29500

#: torchrun's process count of the single-node line printed by `migrate` and its report
#: when no count is given: one process per GPU, or per CPU core without GPUs, so the line
#: runs where it is printed (`gpu` raises "Cuda is not available" on a machine without).
SINGLE_NODE_NPROC = "auto"

#: Shell snippet that counts the GPUs this node can see (CUDA_VISIBLE_DEVICES respected),
#: 1 without any. Used when --gpus-per-node is not given: the count is taken where the
#: script runs, not where it was generated (login nodes often have no GPU).
DETECT_GPUS = "python -c 'import torch; print(max(torch.cuda.device_count(), 1))'"


class LaunchError(ValueError):
    """An impossible combination of launch options (reported as a usage error)."""


@dataclass(frozen=True)
class LaunchPlan:
    """What to launch and where.

    gpus_per_node: processes per node; None means one per GPU visible on the node at run
        time (1 without GPUs), overridable there with NPROC_PER_NODE.
    port: rendezvous port on the first node (multi-node and Slurm only); the environment's
        MASTER_PORT overrides it at run time.
    """

    script: str
    args: tuple[str, ...] = ()
    nodes: int = 1
    gpus_per_node: int | None = None
    slurm: bool = False
    port: int | None = None

    def validate(self) -> None:
        if not self.script or any(c in self.script for c in "\n\r\0"):
            raise LaunchError(f"not a usable script path: {self.script!r}")
        if self.nodes < 1:
            raise LaunchError(f"--nodes must be at least 1, got {self.nodes}")
        if self.gpus_per_node is not None and self.gpus_per_node < 1:
            raise LaunchError(f"--gpus-per-node must be at least 1, got {self.gpus_per_node}")
        if self.port is not None and not 1 <= self.port <= 65535:
            raise LaunchError(f"--port must be in 1..65535, got {self.port}")
        if self.slurm and self.gpus_per_node is None:
            raise LaunchError(
                "--slurm needs --gpus-per-node: the #SBATCH header requests GPUs before "
                "any node is allocated"
            )
        if self.port is not None and self.nodes == 1 and not self.slurm:
            raise LaunchError(
                "--port is for multi-node and Slurm launches; a single-node launch uses "
                "torchrun --standalone, which picks a free port itself"
            )

    @property
    def multi_node(self) -> bool:
        return self.nodes > 1 or self.slurm

    @property
    def job_name(self) -> str:
        """A shell- and Slurm-safe name derived from the script's file name."""
        stem = PurePath(self.script).stem
        return re.sub(r"[^A-Za-z0-9_.-]+", "-", stem).strip("-.") or "train"

    @property
    def command(self) -> str:
        """`train.py ARGS`, quoted for the shell."""
        return " ".join(shlex.quote(part) for part in (self.script, *self.args))


def torchrun_command(plan: LaunchPlan) -> str:
    """The torchrun invocation as one line (for reports and docs).

    Without gpus_per_node a single node says `--nproc_per_node=auto` (torchrun: one process
    per visible GPU, or per CPU core without GPUs, so it runs on a laptop too) and several
    nodes say `gpu` (a GPU cluster's nodes); the rendered scripts instead detect the count
    themselves (1 without GPUs).
    Run-time values stay shell variables: `$MASTER_ADDR`, `$MASTER_PORT`.
    """
    plan.validate()
    nproc = str(plan.gpus_per_node) if plan.gpus_per_node else "gpu"
    if not plan.multi_node:
        nproc = str(plan.gpus_per_node) if plan.gpus_per_node else SINGLE_NODE_NPROC
        return f"torchrun --standalone --nproc_per_node={nproc} {plan.command}"
    rdzv_id = '"$SLURM_JOB_ID"' if plan.slurm else f'"${{RDZV_ID:-{plan.job_name}}}"'
    prefix = "srun " if plan.slurm else ""
    return (
        f"{prefix}torchrun --nnodes={plan.nodes} --nproc_per_node={nproc} "
        f'--rdzv-backend=c10d --rdzv-endpoint="$MASTER_ADDR:$MASTER_PORT" '
        f"--rdzv-id={rdzv_id} {plan.command}"
    )


def render_script(plan: LaunchPlan) -> str:
    """The launch script for `plan`: bash with `set -euo pipefail`, or an sbatch script."""
    from dp2ddp.templating import render  # jinja2: only when a script is rendered

    plan.validate()
    template = (
        "launch/slurm.sh.j2"
        if plan.slurm
        else "launch/multinode.sh.j2"
        if plan.nodes > 1
        else "launch/standalone.sh.j2"
    )
    return render(
        template,
        script=plan.script,
        command=plan.command,
        nodes=plan.nodes,
        gpus_per_node=plan.gpus_per_node,
        port=plan.port if plan.port is not None else DEFAULT_PORT,
        job_name=plan.job_name,
        detect_gpus=DETECT_GPUS,
    )


def default_launch_commands(scripts: Sequence[str]) -> list[str]:
    """One single-node torchrun line per migrated script (what `migrate --report` lists)."""
    return [torchrun_command(LaunchPlan(script)) for script in scripts]
