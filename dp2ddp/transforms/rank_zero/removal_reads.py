"""A path rank 0 removes after every rank read it: the barrier after the last read (moved out
of barriers.py, stop 52 w3, to make room there; the meaning unchanged)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.nodes import enclosing_function
from dp2ddp.transforms.rank_zero.path_shapes import names_within
from dp2ddp.transforms.rank_zero.path_texts import path_texts

if TYPE_CHECKING:
    from dp2ddp.transforms.rank_zero.barriers import Barriers


def plan_removal(barriers: Barriers, removal: cst.Call, reads: dict[str, list[cst.Call]]) -> None:
    """A path rank 0 removes after every rank read it, or a file in it, earlier in the
    function (`np.load(os.path.join(tmp, "x.npy"))`, then `shutil.rmtree(tmp)`): a
    barrier after the last such read, so no rank reads what rank 0 already removed
    (FileNotFoundError on the late rank); DP054 where none can be placed."""
    if not removal.args or removal.args[0].keyword is not None:
        return
    path = removal.args[0].value
    index = barriers.facts.uniform.index  # a local by its own text too: reads join it
    removed = (
        barriers.t.code(path),
        *path_texts(path, removal, barriers.t, barriers.t.code, index),
    )
    function = enclosing_function(removal, barriers.t)
    before = [
        (text, read)
        for text, calls in reads.items()
        if any(names_within(text, root) for root in removed)
        for read in calls
        if enclosing_function(read, barriers.t) is function
        and barriers.t._position(read) < barriers.t._position(removal)
    ]
    if not before:
        return
    text, read = max(before, key=lambda pair: barriers.t._position(pair[1]))
    anchor, omitted = barriers.plan_after(read, leave_loops=True)
    if omitted is not None:
        line = barriers.t.input_position(read)[0]
        barriers.t.warn(
            removal,
            "DP054",
            f"removed on rank 0 here, read by every rank at line {line} (`{text}`) "
            f"before it; no barrier between: {omitted}",
        )
        return
    barriers.t.state.helpers.add("barrier")
    barriers._after.add(id(anchor if anchor is not None else barriers._statement(read)))
