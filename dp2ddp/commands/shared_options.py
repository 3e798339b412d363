"""The migration options `migrate` and `verify` share: one set of click flags, one help text,
and how they meet the project's settings ([tool.dp2ddp], dp2ddp/settings.py).

The command line wins over the settings file: a flag given (`--sync-batchnorm` or
`--no-sync-batchnorm`) replaces the file's value; `--ignore` and `--exclude` add to its lists.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import click

from dp2ddp.codes import CODES
from dp2ddp.options import DEFAULT_FILE_TIMEOUT, MigrateOptions
from dp2ddp.settings import Settings, find_settings, load_settings


@dataclass(frozen=True)
class OptionFlags:
    """The shared flags as given; None: not on the command line."""

    per_process_batch: bool | None = None
    sync_batchnorm: bool | None = None
    keep_summed_loss: bool | None = None
    inline_helpers: bool | None = None
    ignore: frozenset[str] = frozenset()
    file_timeout: int | None = None
    config: str | None = None
    isolated: bool = False


@dataclass(frozen=True)
class Resolved:
    options: MigrateOptions
    settings: Settings


def resolve(flags: OptionFlags, paths: Sequence[str]) -> Resolved:
    """The options for a run on `paths`: the settings file's, overridden by the flags.
    Raises SettingsError (dp2ddp.settings) for a settings file it cannot use."""
    path = None if flags.isolated else flags.config or find_settings(paths)
    settings = Settings() if path is None else load_settings(path)

    def pick(flag: bool | None, setting: bool | None) -> bool:
        return flag if flag is not None else bool(setting)

    options = MigrateOptions(
        per_process_batch=pick(flags.per_process_batch, settings.per_process_batch),
        sync_batchnorm=pick(flags.sync_batchnorm, settings.sync_batchnorm),
        keep_summed_loss=pick(flags.keep_summed_loss, settings.keep_summed_loss),
        inline_helpers=pick(flags.inline_helpers, settings.inline_helpers),
        ignore=settings.ignore | flags.ignore,
        file_timeout=flags.file_timeout or settings.file_timeout or DEFAULT_FILE_TIMEOUT,
    )
    return Resolved(options, settings)


def _codes(ctx: click.Context, param: click.Parameter, values: Sequence[str]) -> frozenset[str]:
    codes = {c.strip().upper() for value in values for c in value.split(",") if c.strip()}
    unknown = sorted(codes - set(CODES))
    if unknown:
        listed = ", ".join(unknown)
        raise click.BadParameter(f"unknown warning code {listed} (see docs/warnings.md)")
    return frozenset(codes)


_OPTIONS: tuple[Callable[[Any], Any], ...] = (
    click.option(
        "--per-process-batch/--no-per-process-batch",
        default=None,
        help="Keep each DataLoader's batch_size as the batch of one process (the global batch "
        "then grows with the number of processes; verify runs the original with the global "
        "batch). Default: batch_size stays the global batch, split across the processes.",
    ),
    click.option(
        "--sync-batchnorm/--no-sync-batchnorm",
        default=None,
        help="Convert BatchNorm layers to SyncBatchNorm.",
    ),
    click.option(
        "--keep-summed-loss/--no-keep-summed-loss",
        default=None,
        help="Leave losses summed over the batch as written (warned, DP004). Default: multiply "
        "them by WORLD_SIZE where they are backpropagated, keeping DataParallel's updates.",
    ),
    click.option(
        "--inline-helpers/--no-inline-helpers",
        default=None,
        help="Put the DDP setup and helpers into the migrated script itself (one "
        "self-contained file). Default: import them from a generated _dp2ddp.py beside it, "
        "holding only the helpers the program uses (standard input always gets the "
        "single-file form).",
    ),
    click.option(
        "--ignore",
        multiple=True,
        metavar="CODE[,CODE]",
        callback=_codes,
        help="Never report these warning codes (repeatable; added to the settings' ignore).",
    ),
    click.option(
        "--file-timeout",
        type=click.IntRange(min=1),
        metavar="SECONDS",
        help="Fail a file whose migration takes longer than this, and go on with the others "
        f"(default {DEFAULT_FILE_TIMEOUT}).",
    ),
    click.option(
        "--config",
        metavar="FILE",
        type=click.Path(exists=True, dir_okay=False),
        help="Read the settings from FILE (a pyproject.toml's [tool.dp2ddp], or a TOML file "
        "of those keys). Default: the nearest pyproject.toml with [tool.dp2ddp] above the "
        "paths.",
    ),
    click.option("--isolated", is_flag=True, help="Read no settings file."),
)
_NAMES = (
    "per_process_batch",
    "sync_batchnorm",
    "keep_summed_loss",
    "inline_helpers",
    "ignore",
    "file_timeout",
    "config",
    "isolated",
)


def migration_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add the shared flags to a click command function, which receives them as one
    `flags: OptionFlags` keyword argument (to pass to `resolve`)."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        flags = OptionFlags(**{name: kwargs.pop(name) for name in _NAMES})
        if flags.isolated and flags.config is not None:
            raise click.UsageError("--isolated reads no settings file: drop --config")
        return command(*args, flags=flags, **kwargs)

    decorated: Callable[..., Any] = wrapper
    for option in reversed(_OPTIONS):
        decorated = option(decorated)
    return decorated
