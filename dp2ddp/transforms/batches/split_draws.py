"""Noise drawn for a batch the batch pass splits at its loop's top.

A loop whose batches no pass proves sharded (a parameter another module hands data the
program cannot show sharded, a loader left whole for evaluation and trained on elsewhere)
is split at its top at run time, `batch = ddp_shard_batch(batch, source=data)`: after that
line the loop's batch is this rank's share whichever way the split went (cut here, or
passed on where the source's sampler shards already). Noise sized by it and drawn from the
process-wide stream, `z = torch.randn(images.shape[0], Z)`, is then drawn per rank: with
the same seed on every rank, every rank drew the same rows for its part, where
DataParallel's one process drew distinct rows for the whole batch. The randomness pass
draws such noise only where it sees the loop's loader sharded; this pass, which places
the split, draws the rest as that pass does: the global batch's rows on rank 0's stream,
each rank keeping its own (`ddp_draw_share`; stop 85 class v1-B, a GAN's latent rows in a
trainer method whose loader another module builds).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, cast

import libcst as cst

from dp2ddp.flow import DefUse, view
from dp2ddp.transforms._support.nodes import name_of, walk
from dp2ddp.transforms.analysis.batch_noise import (
    BATCH_DRAWS,
    DRAW_SHARE,
    GLOBAL_LIKE,
    first_dimension,
    like_argument,
    per_rank_noise,
)
from dp2ddp.transforms.analysis.row_picks import picks_rows

if TYPE_CHECKING:
    from dp2ddp.transforms.batches.loops import BatchLoops
from dp2ddp.transforms.analysis.aliased_draws import aliased_draw

#: The helpers a shared draw calls (templates/helpers).
DRAW_HELPERS = frozenset({"draw_share", "same_random", "rank0_value", "rank_slice"})


def share_split_draws(t: BatchLoops, loop: cst.For) -> None:
    """Each draw of `loop` sized by its batch, which `t` splits at the loop's top, drawn
    as its shared form (split_loop_draws)."""
    if t._module is None:
        return
    for draw, shared in split_loop_draws(loop, view(t._module), t.qualified_names).items():
        t._swap[draw] = shared
        t.state.helpers.update(DRAW_HELPERS)
        if GLOBAL_LIKE in t.code(shared):
            t.state.helpers.add("global_like")
        t.record(
            draw,
            f"{t.code(draw.func)}(...) draws for this rank's part of the batch split here: "
            "the global batch's rows are drawn on rank 0's stream, each rank keeps its own "
            f"({DRAW_SHARE})",
        )


def split_loop_draws(
    loop: cst.For, flow: DefUse, qualified_names: Callable[[cst.CSTNode], set[str]]
) -> dict[cst.Call, cst.BaseExpression]:
    """The draws of `loop`'s body sized by its batch (its rows' count, or a like-draw of
    them) that no pass shares yet, each with its shared form: `ddp_draw_share(lambda:
    torch.randn(n * WORLD_SIZE, Z))`, `ddp_draw_share(lambda:
    torch.randn_like(ddp_global_like(x)))`. Row picks (a permutation of the batch) are the
    hazards pass's."""
    found: dict[cst.Call, cst.BaseExpression] = {}
    for node in walk(loop.body, skip_scopes=True):
        if isinstance(node, cst.Call) and name_of(node.func) == DRAW_SHARE:
            return {}  # the randomness pass shares this loop's draws: none left here
    for node in walk(loop.body, skip_scopes=True):
        if not isinstance(node, cst.Call):
            continue
        names = (qualified_names(node.func) | aliased_draw(flow, node, qualified_names)) & set(
            BATCH_DRAWS
        )
        if not names or picks_rows(flow, node, names):
            continue
        if not per_rank_noise(node, names, loop, {}, flow, fed=True):
            continue
        found[node] = _shared(node, names)
    return found


def _shared(call: cst.Call, names: set[str]) -> cst.BaseExpression:
    """`call` drawn for the global batch on rank 0's stream, this rank's rows kept."""
    drawn: cst.Call = call.deep_clone()
    like = like_argument(drawn, names)
    if like is not None:
        wrapped = cst.Call(func=cst.Name(GLOBAL_LIKE), args=[cst.Arg(like)])
        drawn = cast(cst.Call, drawn.deep_replace(like, wrapped))
    else:
        first = first_dimension(drawn, names)
        assert first is not None
        scaled = cst.BinaryOperation(
            left=first, operator=cst.Multiply(), right=cst.Name("WORLD_SIZE")
        )
        drawn = cast(cst.Call, drawn.deep_replace(first, scaled))
    lazy = cst.Lambda(params=cst.Parameters(), body=drawn)
    return cst.Call(func=cst.Name(DRAW_SHARE), args=[cst.Arg(lazy)])
