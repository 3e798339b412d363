"""One loader factory for every split, with a sampler of its own; the split decides only
`drop_last` (the shape of class v2-E of stop 41)."""

from torch.utils.data import DataLoader, RandomSampler

from _dp2ddp import DdpSamplerShard, ddp_per_rank_batch


def build_loader(dataset, batch_size, split, ddp_shard=True):
    sampler = RandomSampler(dataset)
    if split == "train":
        return DataLoader(
            dataset,
            sampler=(
                DdpSamplerShard(sampler, ddp_per_rank_batch(batch_size), drop_last=True)
                if ddp_shard
                else sampler
            ),
            batch_size=ddp_per_rank_batch(batch_size) if ddp_shard else batch_size,
            drop_last=True,
        )
    return DataLoader(
        dataset,
        sampler=(
            DdpSamplerShard(sampler, ddp_per_rank_batch(batch_size))
            if ddp_shard
            else sampler
        ),
        batch_size=ddp_per_rank_batch(batch_size) if ddp_shard else batch_size,
    )
