"""A rank-0 write at `obj.attr` that another module's method reads at `self.attr`.

Round 37 (Nanne/pytorch-NetVlad@def998e): main.py sets `train_set.cache = path`, writes the
HDF5 feature cache there (rank 0 only, once migrated) and trains over a loader whose
Dataset, in pittsburgh.py, opens `self.cache` in `__getitem__`: no read of main.py names
the file, so no barrier was placed and rank 1 read while rank 0 wrote (BlockingIOError,
FileNotFoundError). The read is seen program-wide (ProgramHints.read_attributes,
path_sinks.read_attributes); the write gets ddp_barrier() after it where every rank
arrives, as a matched read's does (barriers.py), or DP054 where no such place exists.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

if TYPE_CHECKING:
    from dp2ddp.transforms.rank_zero.barriers import Barriers


def read_through_attribute(rule: Barriers, write: cst.Call, texts: tuple[str, ...]) -> bool:
    """Whether `write`'s path (`texts`, as barriers.py spells it) is an attribute of an
    object (not `self`) that another module's method reads a file at: then the barrier
    after it is planned, or DP054 said."""
    attrs = rule.t.state.hints.read_attributes
    held = next((t for t in texts if "." in t and t.rsplit(".", 1)[1] in attrs), None)
    if held is None or held.split(".", 1)[0] == "self":
        return False
    what = f"`{held}` is read as `self.{held.rsplit('.', 1)[1]}` by another module's method"
    anchor, omitted = rule.plan_after(write, leave_loops=True)
    if omitted is not None:
        rule.t.warn(
            write, "DP054", f"written on rank 0 here; {what}; no barrier between: {omitted}"
        )
        return True
    rule.t.state.helpers.add("barrier")
    rule._after.add(id(anchor if anchor is not None else rule._statement(write)))
    rule.t.record(write, f"ddp_barrier() after it: rank 0 writes it, {what}")
    return True
