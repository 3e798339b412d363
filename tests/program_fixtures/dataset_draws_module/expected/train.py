import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_per_rank_batch, ddp_same_random, ddp_setup
from faces import Faces, split_names


def main():
    ddp_setup()
    model = DistributedDataParallel(nn.Linear(2, 2).to(DEVICE), device_ids=DEVICE_IDS)
    with ddp_same_random():
        train_names, val_names = split_names([f"{i}.png" for i in range(128)])
    dataset = Faces(train_names)
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(16),
        sampler=DistributedSampler(dataset, shuffle=True),
    )
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        loader.sampler.set_epoch(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x.to(DEVICE)), y.to(DEVICE)).backward()
            optimizer.step()


if __name__ == "__main__":
    main()
