"""A shuffled loader factory, in a module of its own."""

from torch.utils.data import DataLoader

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


def make_loader(dataset, batch_size, ddp_shard=True):
    # dp2ddp: DP011 no epoch loop found for sampler.set_epoch
    return DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(batch_size) if ddp_shard else batch_size,
        shuffle=None if ddp_shard else True,
        drop_last=True,
        sampler=(
            DdpDistributedSampler(
                dataset, shuffle=True, drop_last=True, advance_epoch=True
            )
            if ddp_shard
            else None
        ),
    )
