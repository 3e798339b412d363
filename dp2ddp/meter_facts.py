"""What the program tells a module of another module's averaging meter class (MeterClass):
moved out of facts.py (its size), read by ProgramFacts.meters. At the bottom of the layers:
it imports nothing of dp2ddp."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MeterClass:
    """An averaging meter class of the program (transforms/data/meters.py proves it):
    `update`'s parameters (name, an integer default's text or None), each sum's terms (the
    parameters multiplied), each ratio (attribute, numerator sum, denominator sum); none of
    these where not proved. `running`: its methods adding to its attributes (DP030's)."""

    params: tuple[tuple[str, str | None], ...] = ()
    sums: tuple[tuple[str, tuple[str, ...]], ...] = ()
    ratios: tuple[tuple[str, str, str], ...] = ()
    running: tuple[str, ...] = ()
