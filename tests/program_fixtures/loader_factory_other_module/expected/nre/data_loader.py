import torch
from torch.utils import data

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


class SentenceDataset(data.Dataset):
    """Sentences with a relation label; eval() scores predictions by position."""

    def __init__(self, n, seed):
        g = torch.Generator().manual_seed(seed)
        self.x = torch.randn(n, 6, generator=g)
        self.y = (self.x.sum(1) > 0).long()

    def __len__(self):
        return len(self.y)

    def __getitem__(self, index):
        return self.x[index], self.y[index]

    def eval(self, pred_result):
        correct = 0
        for i in range(len(self.y)):
            if pred_result[i] == self.y[i].item():
                correct += 1
        return {"acc": correct / len(self.y)}


def SentenceLoader(n, seed, batch_size, shuffle, num_workers=0, ddp_shard=True):
    dataset = SentenceDataset(n, seed)
    return data.DataLoader(
        dataset=dataset,
        batch_size=ddp_per_rank_batch(batch_size) if ddp_shard else batch_size,
        shuffle=None if ddp_shard else shuffle,
        num_workers=num_workers,
        sampler=(
            DdpDistributedSampler(dataset, shuffle=shuffle, advance_epoch=True)
            if ddp_shard
            else None
        ),
    )
