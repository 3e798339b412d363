"""`dp2ddp migrate` (placeholder until implemented)."""

from __future__ import annotations

import click


@click.command()
def migrate() -> None:
    """Not implemented yet."""
    raise click.ClickException("dp2ddp migrate is not implemented yet")
