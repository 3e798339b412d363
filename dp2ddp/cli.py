"""The `dp2ddp` command line: migrate, verify, launch. Printing happens only here and below."""

from __future__ import annotations

import importlib

import click

from dp2ddp import __version__

#: Each command's module, imported only when that command runs: `migrate` needs libcst and
#: jinja2, `verify` does not, and importing them costs every verify run ~0.6 s of CPU.
_COMMANDS = {
    "migrate": "dp2ddp.commands.migrate",
    "verify": "dp2ddp.commands.verify",
    "launch": "dp2ddp.commands.launch",
}


class _LazyGroup(click.Group):
    """click's lazy-loading group: subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(_COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = _COMMANDS.get(cmd_name)
        if module is None:
            return None
        command = getattr(importlib.import_module(module), cmd_name)
        assert isinstance(command, click.Command)
        return command


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="dp2ddp")
def main() -> None:
    """Move PyTorch DataParallel training scripts onto torchrun-ready DDP."""
