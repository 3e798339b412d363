"""The shared form of a draw sized by this rank's batch, one home for the two passes that
write it: the randomness pass (shared_draws, a loop over a sharded or fed loader) and the
batch pass (batches/split_draws.py, a loop it splits at its top)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

import libcst as cst

from dp2ddp.transforms._support.nodes import call_named
from dp2ddp.transforms.analysis.batch_noise import (
    DRAW_SHARE,
    GLOBAL_LIKE,
    first_dimension,
    like_argument,
)

#: The helpers a shared draw calls (templates/helpers).
DRAW_HELPERS = frozenset({"draw_share", "same_random", "rank0_value", "rank_slice"})


def global_batch_draw(call: cst.Call, names: Iterable[str]) -> cst.Call:
    """`call`, a draw sized by this rank's batch, sized for the global batch instead: a
    like-draw of `ddp_global_like(x)`, else its first dimension times WORLD_SIZE."""
    like = like_argument(call, names)
    if like is not None:
        return cast(cst.Call, call.deep_replace(like, call_named(GLOBAL_LIKE, cst.Arg(like))))
    first = first_dimension(call, names)
    assert first is not None
    scaled = cst.BinaryOperation(left=first, operator=cst.Multiply(), right=cst.Name("WORLD_SIZE"))
    return cast(cst.Call, call.deep_replace(first, scaled))


def shared_draw(call: cst.Call) -> cst.Call:
    """`ddp_draw_share(lambda: call)`: drawn on rank 0's stream, each rank its own rows."""
    return call_named(DRAW_SHARE, cst.Arg(cst.Lambda(params=cst.Parameters(), body=call)))
