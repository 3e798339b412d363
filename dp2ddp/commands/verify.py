"""`dp2ddp verify ORIGINAL [MIGRATED] [options] [-- SCRIPT_ARGS...]`.

Exit status: 0 equivalent, 1 not equivalent (numerics, sharding, or with --to-end output
printed or files written by more than one rank), 2 a run failed, timed out (its ranks' stacks
are shown), never reached an optimizer step, both runs went non-finite at the same step, or
nothing could be run.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import click

from dp2ddp.commands.shared_options import migration_options, resolve
from dp2ddp.settings import SettingsError
from dp2ddp.verify.config import (
    DEFAULT_ATOL,
    DEFAULT_RTOL,
    DEFAULT_SEED,
    DEFAULT_STEPS,
    DEFAULT_TIMEOUT,
    VerifyConfig,
)

_SCRIPT_ARGS = "dp2ddp.verify.script_args"


class _VerifyCommand(click.Command):
    """Everything after `--` belongs to the scripts, not to dp2ddp (nor to MIGRATED)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" in args:
            cut = args.index("--")
            ctx.meta[_SCRIPT_ARGS] = tuple(args[cut + 1 :])
            args = args[:cut]
        return super().parse_args(ctx, args)

    def collect_usage_pieces(self, ctx: click.Context) -> list[str]:
        return [*super().collect_usage_pieces(ctx), "[-- SCRIPT_ARGS...]"]


_FILE = click.Path(exists=True, dir_okay=False, path_type=Path)

#: torch is an extra: `pip install dp2ddp` migrates, `pip install "dp2ddp[verify]"` verifies.
NO_TORCH = (
    "verify runs your scripts with torch, which this Python environment does not have: "
    'pip install "dp2ddp[verify]" (or pip install torch)'
)


def torch_missing() -> bool:
    """torch cannot be imported by the runs (they use this interpreter)."""
    try:
        return importlib.util.find_spec("torch") is None
    except (ImportError, ValueError):
        return True


def error_message(text: str) -> str:
    """One "error:" a line: a message that is already a `path:line:col: error: ...` line (a
    file the migration could not read or parse) is printed as it is."""
    if ": error: " in text:
        return text
    return f"dp2ddp verify: error: {text}"


def _progress(message: str) -> None:
    """What verify is doing, as it goes (stderr: the verdict on stdout stays clean)."""
    click.echo(f"dp2ddp verify: {message} ...", err=True)


@click.command(cls=_VerifyCommand)
@click.argument("original", type=_FILE)
@click.argument("migrated", type=_FILE, required=False)
@click.option(
    "--nproc", type=click.IntRange(min=1), help="DDP processes [GPUs visible, or 2 on CPU]."
)
@click.option(
    "--steps",
    type=click.IntRange(min=1),
    default=DEFAULT_STEPS,
    show_default=True,
    help="Optimizer steps to compare.",
)
@click.option(
    "--backend",
    type=click.Choice(["auto", "gloo", "nccl"]),
    default="auto",
    show_default=True,
    help="auto: nccl with GPUs, gloo on CPU.",
)
@click.option(
    "--rtol",
    type=float,
    default=DEFAULT_RTOL,
    show_default=True,
    help="Relative tolerance on each parameter's update (RMS).",
)
@click.option(
    "--atol",
    type=float,
    default=DEFAULT_ATOL,
    show_default=True,
    help="Absolute tolerance on each parameter's update (RMS).",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=DEFAULT_TIMEOUT,
    show_default=True,
    help="Seconds each run may take; then all its processes end.",
)
@click.option(
    "--json",
    "json_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the verdict as JSON (for CI and PR bots).",
)
@click.option(
    "--report",
    "report_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Append the verdict as a Markdown section to this PR report.",
)
@migration_options
@click.option("--no-dropout", is_flag=True, help="Switch dropout off in both runs (check only).")
@click.option(
    "--keep-dropout",
    is_flag=True,
    help="Dropout that cannot be aligned with DataParallel's chunks still draws masks"
    " (by default it is switched off in both runs for the check).",
)
@click.option(
    "--freeze-batchnorm",
    is_flag=True,
    help="BatchNorm uses running statistics in both runs (check only; by default the original"
    " normalises per DataParallel chunk, as on --nproc GPUs).",
)
@click.option(
    "--to-end",
    is_flag=True,
    help="After the compared steps, run both scripts to their end (give short settings "
    "after --): every rank must exit 0 within --timeout, print the original's output once "
    "(rank 0) and write each file once.",
)
@click.option(
    "--exclude",
    multiple=True,
    metavar="GLOB",
    help="Link project paths matching GLOB into verify's copy instead of copying them (as "
    "those .gitignore excludes; repeatable).",
)
@click.option(
    "--seed",
    type=int,
    default=DEFAULT_SEED,
    show_default=True,
    help="Seed of every RNG in every process.",
)
@click.pass_context
def verify(ctx: click.Context, /, **params: Any) -> None:
    """Run ORIGINAL (DataParallel) and its DDP migration on the same data with the same initial
    weights, and compare the parameter updates of the first optimizer steps.

    Without MIGRATED, ORIGINAL's project is copied to a temporary folder and migrated there
    as `dp2ddp migrate ORIGINAL` would; your files are never modified. The migration runs
    under torchrun (--standalone); each rank's samples are fingerprinted to check that the
    ranks split the original's batch. Arguments for the scripts go after `--`.
    """
    if torch_missing():
        click.echo(f"dp2ddp verify: error: {NO_TORCH}", err=True)
        ctx.exit(2)
    from dp2ddp.verify.render import append_markdown, to_json, to_text
    from dp2ddp.verify.session import VerifyError
    from dp2ddp.verify.session import verify as run_verify

    try:
        resolved = resolve(params["flags"], [str(params["original"])])
    except SettingsError as exc:
        click.echo(exc.format(), err=True)
        ctx.exit(2)
    config = VerifyConfig(
        original=params["original"],
        migrated=params["migrated"],
        nproc=params["nproc"],
        steps=params["steps"],
        backend=params["backend"],
        rtol=params["rtol"],
        atol=params["atol"],
        timeout=params["timeout"],
        script_args=ctx.meta.get(_SCRIPT_ARGS, ()),
        migrate_options=resolved.options,
        no_dropout=params["no_dropout"],
        freeze_batchnorm=params["freeze_batchnorm"],
        keep_dropout=params["keep_dropout"],
        seed=params["seed"],
        to_end=params["to_end"],
        exclude=tuple(params["exclude"]),
        progress=_progress,
    )
    try:
        report = run_verify(config)
    except VerifyError as exc:
        click.echo(error_message(str(exc)), err=True)
        ctx.exit(2)
    except KeyboardInterrupt:  # the runs' processes and temporary files are gone already
        click.echo("dp2ddp verify: interrupted", err=True)
        ctx.exit(130)
    click.echo(to_text(report))
    try:
        if params["json_path"] is not None:
            params["json_path"].write_text(to_json(report), encoding="utf-8")
        if params["report_path"] is not None:
            append_markdown(report, params["report_path"])
    except OSError as exc:
        click.echo(f"dp2ddp verify: error: cannot write: {exc}", err=True)
        ctx.exit(2)
    ctx.exit(report.exit_code)
