import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_per_rank_batch, ddp_setup
from data import Clouds
from util import set_seed


def main():
    ddp_setup()
    set_seed(1)
    torch.manual_seed(1)
    model = DistributedDataParallel(nn.Linear(1, 1).to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    dataset = Clouds(16)
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(8),
        sampler=DistributedSampler(dataset, shuffle=True),
        num_workers=0,
    )
    for epoch in range(2):
        loader.sampler.set_epoch(epoch)
        for x, y in loader:
            loss = (model(x) - y).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
