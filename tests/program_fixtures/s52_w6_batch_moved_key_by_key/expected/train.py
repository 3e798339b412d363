import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, Dataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    WORLD_SIZE,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)
from utils import move_data_to_device


class Clips(Dataset):
    def __init__(self):
        g = torch.Generator().manual_seed(0)
        self.feature = torch.randn(16, 4, generator=g)
        self.target = torch.randn(16, 1, generator=g)

    def __len__(self):
        return 16

    def __getitem__(self, i):
        return {"feature": self.feature[i], "target": self.target[i], "index": i}


def main():
    ddp_setup()
    torch.manual_seed(0)
    device = torch.device("cpu")
    model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    dataset = Clips()
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(8),
        sampler=DdpDistributedSampler(dataset, shuffle=False),
    )
    for epoch in range(2):
        for batch_data_dict in loader:
            for key in batch_data_dict.keys():
                batch_data_dict[key] = move_data_to_device(batch_data_dict[key], device)
            output = model(batch_data_dict["feature"])
            loss = ((output - batch_data_dict["target"]) ** 2).sum()
            opt.zero_grad()
            (loss * WORLD_SIZE).backward()
            opt.step()
    ddp_print("weights %.4f" % model.module.weight.sum().item())


if __name__ == "__main__":
    main()
