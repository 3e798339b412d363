"""`dp2ddp launch`: write a ready torchrun launch script for a migrated training script."""

from __future__ import annotations

import os
from pathlib import Path

import click

from dp2ddp.launch_scripts import DEFAULT_PORT, LaunchError, LaunchPlan, render_script


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("script")
@click.argument("script_args", nargs=-1, type=click.UNPROCESSED, metavar="[-- ARGS]...")
@click.option("--nodes", type=int, default=1, show_default=True, help="Number of machines.")
@click.option(
    "--gpus-per-node",
    type=int,
    default=None,
    help="Processes per node. Default: one per GPU the node sees when the script runs "
    "(1 without GPUs). Required with --slurm.",
)
@click.option(
    "--slurm", is_flag=True, help="Write an sbatch script: srun starts one torchrun per node."
)
@click.option(
    "--port",
    type=int,
    default=None,
    help=f"Rendezvous port on the first node (multi-node and Slurm; default {DEFAULT_PORT}, "
    "MASTER_PORT overrides it at run time).",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    default=None,
    help="Write the script here (made executable) instead of printing it.",
)
def launch(
    script: str,
    script_args: tuple[str, ...],
    nodes: int,
    gpus_per_node: int | None,
    slurm: bool,
    port: int | None,
    output: Path | None,
) -> None:
    """Write a torchrun launch script for SCRIPT.

    One node: `torchrun --standalone`. Several nodes: torchrun with the c10d rendezvous at
    $MASTER_ADDR:$MASTER_PORT; run the script on every node. --slurm: an sbatch script.
    Arguments after `--` are passed to SCRIPT (quoted for the shell).

    \b
    Examples:
      dp2ddp launch train.py --gpus-per-node 4 -o launch.sh -- --epochs 10
      dp2ddp launch train.py --nodes 2 --gpus-per-node 8 --slurm -o train.sbatch
    """
    plan = LaunchPlan(script, script_args, nodes, gpus_per_node, slurm, port)
    try:
        text = render_script(plan)
    except LaunchError as exc:
        raise click.UsageError(str(exc)) from None
    _check_script(script)
    if output is None or str(output) == "-":
        click.echo(text, nl=False)
        return
    output.write_text(text, encoding="utf-8")
    mode = output.stat().st_mode
    output.chmod(mode | ((mode & 0o444) >> 2))  # executable wherever readable
    run = (
        f"sbatch {output}"
        if slurm
        else (
            f"MASTER_ADDR=<first node> {_run_path(output)}  # on every node"
            if nodes > 1
            else _run_path(output)
        )
    )
    click.echo(f"wrote {output}; run: {run}", err=True)


def _run_path(path: Path) -> str:
    return str(path) if path.parent != Path() else f"./{path}"


def _check_script(script: str) -> None:
    """Notes on stderr (never an error: the script may live on the cluster only)."""
    path = Path(script)
    if not path.is_file():
        click.echo(f"note: {script} does not exist here; the launch script refers to it", err=True)
        return
    from dp2ddp.api import migrate_source
    from dp2ddp.errors import InputError

    try:
        source = path.read_text(encoding="utf-8")
        result = migrate_source(source, filename=os.fspath(path))
    except (OSError, UnicodeDecodeError, InputError):
        return
    if result.changed:
        click.echo(
            f"warning: {script} still uses DataParallel: run `dp2ddp migrate {script}` first",
            err=True,
        )
