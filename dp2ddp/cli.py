"""The `dp2ddp` command line: migrate, verify, launch. Printing happens only here and below."""

from __future__ import annotations

import click

from dp2ddp import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="dp2ddp")
def main() -> None:
    """Move PyTorch DataParallel training scripts onto torchrun-ready DDP."""


def _register() -> None:
    from dp2ddp.commands.launch import launch
    from dp2ddp.commands.migrate import migrate
    from dp2ddp.commands.verify import verify

    main.add_command(migrate)
    main.add_command(verify)
    main.add_command(launch)


_register()
