# A loader factory whose batch_size parameter defaults to 1, called from another module with
# its own value (bridgeqiqi/DIP2021-FinalPJbaseline@6c8f3a2, stop 53 v2): DP133 said "every
# binding it reads is the constant 1"; now it says where it is 1 and that callers pass theirs.
import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


def get_train_loader(data, batch_size=1):
    dataset = TensorDataset(*data)
    # dp2ddp: DP133
    return DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(batch_size),
        sampler=DdpDistributedSampler(dataset, shuffle=True, advance_epoch=True),
    )
