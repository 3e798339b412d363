import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)
from base_train import train
from util import run_folder, weights_sum

ddp_setup()


if __name__ == "__main__":
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(16, 4), torch.randn(16, 2))
    loader = DataLoader(
        data,
        batch_size=ddp_per_rank_batch(4),
        sampler=DdpDistributedSampler(data, shuffle=False),
    )
    model = DistributedDataParallel(nn.Linear(4, 2).to(DEVICE), device_ids=DEVICE_IDS)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    train(run_folder("exp"), loader, model, optimizer, 2)
    ddp_print("weights %.4f" % weights_sum(model))
