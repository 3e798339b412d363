"""Which indices each DDP rank draws so that the global batch equals the original's batch.

DataParallel's batch s is `order[s*B:(s+1)*B]`. DistributedSampler natively hands rank r the
stride `order[r::W]`; with per-rank batch b = B/W the union of the ranks' batch s is then the
same *set* as the original's batch s, but each rank holds every W-th sample of it. Giving rank r
the r-th *contiguous* slice of every global batch instead makes the union equal, and rank r's
batch equal to the chunk DataParallel's scatter hands device r: so per-device effects
(BatchNorm over a chunk on GPUs) line up too. Stdlib only: runs inside the user's processes.
"""

from __future__ import annotations


def pad_like_distributed_sampler(order: list[int], total_size: int, drop_last: bool) -> list[int]:
    """Pad (repeating from the start) or truncate `order` to `total_size`, as DistributedSampler."""
    if drop_last:
        return order[:total_size]
    padded = list(order)
    while len(padded) < total_size:
        padded += order[: total_size - len(padded)]
    return padded


def rank_indices(
    order: list[int], rank: int, world: int, num_samples: int, per_rank_batch: int | None
) -> list[int]:
    """Rank `rank`'s `num_samples` indices from the padded global `order` (length W*num_samples).

    Full global batches of W*b are cut into W contiguous slices of b; what is left (the last,
    partial global batch) is cut into W equal contiguous slices. Without a known per-rank batch,
    the native stride, which gives the same global batches as sets.
    """
    total = num_samples * world
    if len(order) != total:
        raise ValueError(f"order has {len(order)} indices, expected {total}")
    if not per_rank_batch or per_rank_batch < 1:
        return order[rank:total:world]
    b = per_rank_batch
    global_batch = b * world
    full = total // global_batch
    mine: list[int] = []
    for k in range(full):
        start = k * global_batch + rank * b
        mine += order[start : start + b]
    tail = order[full * global_batch :]
    t = len(tail) // world
    mine += tail[rank * t : (rank + 1) * t]
    return mine
