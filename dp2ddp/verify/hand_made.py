"""Causes and fixes for training batches the program makes itself, with no DataLoader.

verify's data causes were written for DataLoaders: "Give the training DataLoader
sampler=DistributedSampler(...)", "Use batch_size=B // WORLD_SIZE in the migrated
DataLoader". A program that draws its batches (`torch.randint` windows of a token stream,
glouppe/info8010-deep-learning@9175a6f gpt-v6) or slices them from a tensor has no loader to
give a sampler to: the advice did not fit it (stop 54 r1-C). Where no window of the original
loaded a sample from a DataLoader, the batches are hand-made, and the cause says where they
are made (DP006 or DP037 from verify's own migration, at their lines) and how to give each
rank its part there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dp2ddp.verify.ratio_cause import warned
from dp2ddp.verify.report import Cause

if TYPE_CHECKING:
    from dp2ddp.verify.causes import Evidence

#: The warnings that say where a hand-made batch is drawn or cut: draws in the loop, a batch
#: sliced by hand that the migration could not split.
_WHERE_CODES = ("DP006", "DP037")


def hand_made(ev: Evidence) -> bool:
    """No DataLoader yielded a training batch in the original's compared steps (their
    windows record the loaded samples, none), and the models were fed: the program makes
    its batches itself."""
    windows = ev.windows(ev.original)
    recorded = bool(windows) and all(isinstance(w.get("loaded"), list) for w in windows)
    return (
        recorded and not any(w["loaded"] for w in windows) and any(w.get("inputs") for w in windows)
    )


def made_at(ev: Evidence) -> str:
    """ "; dp2ddp migrate warned DP006 at path:line, ..." where the batches are made."""
    warnings = ev.migration_warnings
    places = [f"{code} at {p}" for code in _WHERE_CODES for p in warned(warnings, code)]
    if not places:
        return ""
    shown = "; ".join(places[:3]) + (f" and {len(places) - 3} more" if len(places) > 3 else "")
    return f"; dp2ddp migrate warned where the batches are drawn or cut: {shown}"


#: How to give each rank its part of a batch the program makes itself.
SHARE_FIX = (
    "The program makes its batches itself (no DataLoader, so no DistributedSampler applies): "
    "give each rank its part where a batch is made: draw or cut the whole batch alike on "
    "every rank and keep rows [rank * B // WORLD_SIZE, (rank + 1) * B // WORLD_SIZE) (what "
    "dp2ddp migrate writes where it proves the batch: `with ddp_same_random():` around the "
    "draw, then ddp_shard_batch), or make B // WORLD_SIZE rows per rank"
)


def same_data(ev: Evidence, detail: str) -> Cause:
    """Every rank trained on the same hand-made batches."""
    return Cause(
        "batches_not_split",
        "every rank trains on the same data: the program makes its batches itself",
        f"{detail}; no DataLoader yielded a training batch{made_at(ev)}. This is not "
        "data-parallel training, whatever the numbers.",
        SHARE_FIX + "; then verify again.",
    )


def undivided_fix() -> str:
    return SHARE_FIX + "; if the larger global batch is intended, verify with --per-process-batch."


def overlap_fix() -> str:
    return SHARE_FIX + ": the ranks' parts must not overlap."


def differs_fix() -> str:
    return SHARE_FIX + ": the ranks' parts together must be the original's batch."
