"""State a model's forward keeps on `self`, sized by the rows that forward saw.

A forward that caches a value built from its batch on the module (`if k not in self.tgt:
self.tgt[k] = torch.arange(n)`, an attribute it adds, a list it appends to) and reuses it
later works while every forward sees one batch size: on one device the whole batch, on W
GPUs DataParallel's replica chunk. Verify's original on CPU runs the training forwards as
W replicas (replicas.py) and other forwards over the whole batch unless told otherwise; so
the state one left met the other: TengdaHan/MemDPC@d7dbbf0's `self.tgt_dict[SL]`, keyed by
a constant and sized by the first batch, made the original crash under verify alone (round
25; "the original failed under verify's seeding", false), and the same with its validation.

So the replicas' forward records here what it kept on `self` (a container whose contents it
changed, an attribute it added), by `Class.attribute` with the rows per replica; a wrapped
model that keeps such state runs its later forwards as replicas too (eval, no gradient,
after the compared steps), as it would on W GPUs. Where a forward still meets the other
size (a batch that does not split evenly), the crash is said as what it is
(`state_crash_cause`), never blamed on the seeding.
"""

from __future__ import annotations

import copy
import functools
import weakref
from typing import TYPE_CHECKING, Any

from dp2ddp.verify.report import Cause

if TYPE_CHECKING:  # the verify process reads the records without torch
    import torch


@functools.cache
def _module_keys() -> frozenset[str]:
    """nn.Module's own attributes (parameters, buffers, submodules, hooks): not the
    program's state."""
    import torch

    return frozenset(torch.nn.Module().__dict__)


#: wrapped models whose forward kept batch-sized state on `self` (process-wide)
_HOLDING: weakref.WeakSet[torch.nn.Module] = weakref.WeakSet()

Contents = list[tuple["torch.nn.Module", str, Any, Any]]


def contents(module: torch.nn.Module) -> Contents:
    """Each submodule's containers held on `self` (dict, list, set): the object and a
    shallow copy of its contents, to tell what a forward changed in place and to undo it."""
    return [
        (m, key, value, copy.copy(value))
        for m in module.modules()
        for key, value in list(m.__dict__.items())
        if key not in _module_keys() and isinstance(value, dict | list | set)
    ]


def _changed(value: Any, saved: Any) -> bool:
    if isinstance(value, dict):
        return value.keys() != saved.keys() or any(value[k] is not saved[k] for k in value)
    if isinstance(value, list):
        return len(value) != len(saved) or any(
            a is not b for a, b in zip(value, saved, strict=True)
        )
    return bool(value != saved)


def restore(before: Contents) -> None:
    """The containers' contents as `contents` found them (the objects stay the module's)."""
    for _, _, value, saved in before:
        if _changed(value, saved):
            value.clear()
            value.update(saved) if isinstance(value, dict | set) else value.extend(saved)


def note_kept(
    recorder: Any,
    wrapper: torch.nn.Module,
    before: Contents,
    added: list[dict[str, Any]],
    modules: list[torch.nn.Module],
    rows: int,
) -> None:
    """Record what replica 0's forward kept on `self` (`added`: per module of `modules`,
    the attributes it added) and mark `wrapper` as holding state sized by `rows`."""
    kept = [f"{type(m).__name__}.{key}" for m, key, v, saved in before if _changed(v, saved)]
    kept += [
        f"{type(m).__name__}.{key}" for m, new in zip(modules, added, strict=True) for key in new
    ]
    for name in kept:
        recorder.forward_state.setdefault(name, rows)
    if kept:
        _HOLDING.add(wrapper)


def holds_state(module: torch.nn.Module) -> bool:
    """Whether `module` (a wrapper) ran as replicas and kept batch-sized state on `self`."""
    return module in _HOLDING


def state_crash_cause(
    forward_state: dict[str, int], warnings: tuple[str, ...], message: str, where: str
) -> Cause:
    """Why an original whose replicas kept state on `self` crashed under verify: not
    comparable step by step, named with the state and the line migrate found it at (DP007),
    never "the original failed under verify's seeding"."""
    names = ", ".join(f"{name} (set at {rows} rows)" for name, rows in forward_state.items())
    attrs = {name.rpartition(".")[2] for name in forward_state}
    lines = [
        w.split(" DP007 ")[0].rstrip(":").rsplit(":", 1)[0]
        for w in warnings
        if " DP007 " in w and any(f"self.{a}" in w for a in attrs)
    ]
    return Cause(
        "not_comparable",
        "not comparable step by step: the model's forward keeps state on self sized by the "
        "rows it saw",
        f"{names}" + (f", written at {', '.join(lines)} (DP007)" if lines else "")
        + f"; verify ran the original's forwards as DataParallel's replicas (a chunk of the "
        f"batch each), and a forward over other rows met that state and crashed ({message}"
        + (f", at {where}" if where else "")
        + "): on one device every forward sees the whole batch, on W GPUs every replica its "
        "chunk of an evenly split batch. Not verify's seeding, and not the migration",
        "Key the cache by the rows it is built for (or build it in each forward) and verify "
        "again.",
    )  # fmt: skip
