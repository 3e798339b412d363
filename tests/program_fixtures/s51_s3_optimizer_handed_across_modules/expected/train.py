import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    ddp_per_rank_batch,
    ddp_print,
    ddp_same_random,
    ddp_setup,
)
from losses import LossCompute, WarmupOpt


def main():
    ddp_setup()
    torch.manual_seed(0)
    model = DistributedDataParallel(nn.Linear(4, 2).to(DEVICE), device_ids=DEVICE_IDS)
    optimizer = WarmupOpt(torch.optim.SGD(model.parameters(), lr=0.1), 10)
    compute = LossCompute(nn.MSELoss(), optimizer)
    with ddp_same_random():
        data = torch.utils.data.TensorDataset(torch.randn(16, 4), torch.randn(16, 2))
    loader = torch.utils.data.DataLoader(
        data,
        batch_size=ddp_per_rank_batch(4),
        sampler=DistributedSampler(data, shuffle=True),
    )
    for epoch in range(2):
        loader.sampler.set_epoch(epoch)
        for x, y in loader:
            ddp_print(compute(model(x), y))


if __name__ == "__main__":
    main()
