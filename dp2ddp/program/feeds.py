"""What the program's call sites hand its libraries' functions (program mode).

Each module's migration records the DataLoaders it passes to other modules' functions and
methods (data/handoffs.py, MigrationResult.handoffs); program/migrate.py tells each library
what its sites pass (facts.LoaderFeed) and migrates it again, told so. Likewise the
exported loaders its importers placed set_epoch for (MigrationResult.epoch_loops,
ProgramLoaders.epochs_set).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePath
from typing import Protocol

from dp2ddp.facts import LoaderFeed
from dp2ddp.program.discovery import ProgramModule
from dp2ddp.program.reexports import ProgramReexports
from dp2ddp.result import FileOutcome


class _Migrated(Protocol):
    """A module's migration (program/migrate.py): its outcome."""

    @property
    def outcome(self) -> FileOutcome: ...


def loader_feeds(
    libraries: Sequence[ProgramModule],
    migrated: Sequence[_Migrated],
    reexports: ProgramReexports | None = None,
) -> dict[str, tuple[LoaderFeed, ...]]:
    """Per library (import name), what the program's call sites pass its top-level
    functions' parameters, and its top-level classes' methods' ("Class.method": the callee
    "model.PRNet._train_one_epoch" of `net._train_one_epoch(...)`) (facts.LoaderFeed): only
    where some site passes a sharded loader
    of the module (whole ones alone are the batch pass's unknown source, split at the
    model call). A callee a package re-exports is named by the module defining it."""
    names = {m.name for m in libraries}
    sites: dict[tuple[str, str, int | None, str | None], tuple[list[str], list[str]]] = {}
    sized: dict[tuple[str, str, int | None, str | None], list[set[tuple[int | None, str | None]]]]
    sized = {}
    for each in (m.outcome for m in migrated):
        outcome = each.result
        for handoff in outcome.handoffs if outcome is not None else ():
            callee = reexports.defined_in(handoff.callee) if reexports else handoff.callee
            module_name, _, function = callee.rpartition(".")
            if module_name not in names:  # a method: "model.PRNet._train_one_epoch"
                module_name, _, owner = module_name.rpartition(".")
                function = f"{owner}.{function}"
            if module_name not in names:
                continue
            key = (module_name, function, handoff.position, handoff.keyword)
            sharded, whole = sites.setdefault(key, ([], []))
            where = f"{PurePath(each.path).name}:{handoff.line}"
            (sharded if handoff.sharded else whole).append(where)
            sized.setdefault(key, []).append(set(handoff.sizes))
    fed: dict[str, list[LoaderFeed]] = {}
    for key, (sharded, whole) in sites.items():
        # the global batch size handed beside the loader at every site (none whole)
        sizes = set.intersection(*sized[key]) if not whole else set()
        module_name, function, position, keyword = key
        feed = LoaderFeed(
            function, position, keyword, tuple(sharded), tuple(whole), tuple(sorted(sizes, key=str))
        )
        fed.setdefault(module_name, []).append(feed)
    # a site passing by keyword and another by position meet in the batch pass (it knows
    # the parameters): a module is told all its sites once one passes a sharded loader
    return {name: tuple(feeds) for name, feeds in fed.items() if any(f.sharded for f in feeds)}


def epochs_set(
    libraries: Sequence[ProgramModule],
    done: Mapping[str, _Migrated],
    migrated: Sequence[_Migrated],
) -> dict[str, tuple[str, ...]]:
    """By library's import name: the names of its exports (LoaderExport.name) that some
    module of `migrated` placed set_epoch for around its loops and none iterates without
    one (MigrationResult.epoch_loops)."""
    loops = [
        each
        for m in migrated
        if m.outcome.result is not None
        for each in m.outcome.result.epoch_loops
    ]
    placed = {key for key, ok in loops if ok} - {key for key, ok in loops if not ok}
    found: dict[str, tuple[str, ...]] = {}
    for module in libraries:
        result = done[module.real].outcome.result if module.real in done else None
        exports = result.exports if result is not None else ()
        names = [e.name for e in exports if f"{module.name}.{e.name}" in placed]
        if names:
            found[module.name] = tuple(dict.fromkeys(names))
    return found


def share_attributes(
    libraries: Sequence[ProgramModule],
    done: Mapping[str, _Migrated],
    reexports: ProgramReexports | None = None,
) -> tuple[tuple[str, str, str], ...]:
    """The libraries' counters on an instance summing this rank's batches (MigrationResult.
    share_attributes), as (qualified class, attribute, "path:line"): the entry reading one
    off an instance shows this rank's share (ProgramLoaders.share_attributes, DP030). A
    class a package re-exports is named both ways."""
    found: list[tuple[str, str, str]] = []
    for module in libraries:
        result = done[module.real].outcome.result if module.real in done else None
        for owner, attribute, line in result.share_attributes if result is not None else ():
            where = f"{PurePath(module.path).name}:{line}"
            found.append((f"{module.name}.{owner}", attribute, where))
    if reexports is not None:
        for qualified, attribute, where in list(found):
            for name in reexports.aliases(qualified):
                found.append((name, attribute, where))
    return tuple(dict.fromkeys(found))
