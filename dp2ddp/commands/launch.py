"""`dp2ddp launch` (placeholder until implemented)."""

from __future__ import annotations

import click


@click.command()
def launch() -> None:
    """Not implemented yet."""
    raise click.ClickException("dp2ddp launch is not implemented yet")
