"""One loader factory for every split (its locals named for training), and a helper
returning the fit and the held-out loader as a pair."""
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


def build_loader(rows, targets, batch_size, ddp_shard=True):
    train_set = TensorDataset(rows, targets)
    train_loader = DataLoader(
        train_set,
        batch_size=ddp_per_rank_batch(batch_size) if ddp_shard else batch_size,
        shuffle=None if ddp_shard else False,
        sampler=DdpDistributedSampler(train_set, shuffle=False) if ddp_shard else None,
    )
    return train_loader


def split_loaders(rows, targets, held_out, batch_size):
    # dp2ddp: DP015 evaluation metrics not reduced
    return (
        build_loader(rows[held_out:], targets[held_out:], batch_size),
        build_loader(rows[:held_out], targets[:held_out], batch_size, ddp_shard=False),
    )
