"""`dp2ddp verify` (placeholder until implemented)."""

from __future__ import annotations

import click


@click.command()
def verify() -> None:
    """Not implemented yet."""
    raise click.ClickException("dp2ddp verify is not implemented yet")
