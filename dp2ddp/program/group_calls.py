"""The libraries' functions and classes whose call needs the process group (program mode;
moved out of program/migrate.py, which asks it for the entry's ddp_setup() placement)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from dp2ddp.program.discovery import ProgramModule
from dp2ddp.result import FileOutcome


class _Migrated(Protocol):
    """A module's migration (program/migrate.py): its outcome."""

    @property
    def outcome(self) -> FileOutcome: ...


def group_calls(
    libraries: Sequence[ProgramModule], done: Mapping[str, _Migrated]
) -> frozenset[str]:
    """The libraries' top-level functions and classes whose call runs what their migration
    made need the process group (process_group.group_functions), through one another too:
    the entry's import-time call of one needs ddp_setup() before it (v3-A, stop 44:
    e3_diffusion's `dataset.retrieve_dataloaders(args)` at module level built its
    DistributedSampler before main()'s ddp_setup()). Only modules writing such a name are parsed."""
    import libcst as cst

    from dp2ddp.transforms.process_group import NEEDS_GROUP, group_functions

    codes = [
        result.code
        for module in libraries
        if (result := done[module.real].outcome.result) is not None and result.changed
    ]
    trees: dict[int, cst.Module] = {}
    names: set[str] = set()
    grown = True
    while grown:
        grown = False
        wanted = NEEDS_GROUP | names
        for index, code in enumerate(codes):
            if not any(name in code for name in wanted):
                continue
            if index not in trees:
                trees[index] = cst.parse_module(code)
            found = group_functions(trees[index].body, frozenset(wanted)) - names
            if found:
                names |= found
                grown = True
    return frozenset(names)
