"""Did every DDP rank build the same dataset? (issue 18: randomness before the sampler)

Each process fingerprints the dataset of every DataLoader it creates (alignment.dataset_digest:
a few samples read at indices spread over it). DistributedSampler shards by index, so ranks
whose k-th loader holds other samples at the same indices (a sample list shuffled in a
Dataset's __init__, random_split without a generator, each drawing per process) train on
overlapping shards that miss samples: the run is not the original's, whatever the numbers.
"""

from __future__ import annotations

from dp2ddp.verify.records import RankRecord


def dataset_mismatch(ranks: list[RankRecord]) -> str | None:
    """What differs, said for the first loader whose dataset differs between rank 0 and
    another rank; None when every loader's dataset is the same wherever it was read."""
    if len(ranks) < 2:
        return None
    loaders = [rank.data.get("loaders", []) for rank in ranks]
    for index, first in enumerate(loaders[0]):
        digest = first.get("dataset")
        if digest is None:
            continue
        others = [
            rank.rank
            for rank, entries in zip(ranks[1:], loaders[1:], strict=True)
            if index < len(entries) and entries[index].get("dataset") not in (None, digest)
        ]
        if others:
            which = ", ".join(f"rank {r}" for r in others)
            return (
                f"DataLoader {index + 1} created: {which} holds other samples than rank 0 "
                "at the same indices, so the DistributedSampler shards overlap and miss samples"
            )
    return None
