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
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import DefUse, view
from dp2ddp.transforms._support.nodes import name_of, walk
from dp2ddp.transforms.analysis.aliased_draws import aliased_draw
from dp2ddp.transforms.analysis.batch_noise import (
    BATCH_DRAWS,
    DRAW_SHARE,
    GLOBAL_LIKE,
    per_rank_noise,
)
from dp2ddp.transforms.analysis.draw_shares import DRAW_HELPERS, global_batch_draw, shared_draw
from dp2ddp.transforms.analysis.row_picks import picks_rows

if TYPE_CHECKING:
    from dp2ddp.transforms.batches.loops import BatchLoops


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
    calls = [n for n in walk(loop.body, skip_scopes=True) if isinstance(n, cst.Call)]
    if any(name_of(call.func) == DRAW_SHARE for call in calls):
        return {}  # the randomness pass shares this loop's draws: none left here
    found: dict[cst.Call, cst.BaseExpression] = {}
    for node in calls:
        names = (qualified_names(node.func) | aliased_draw(flow, node, qualified_names)) & set(
            BATCH_DRAWS
        )
        if not names or picks_rows(flow, node, names):
            continue
        if not per_rank_noise(node, names, loop, {}, flow, fed=True):
            continue
        found[node] = shared_draw(global_batch_draw(node.deep_clone(), names))
    return found
