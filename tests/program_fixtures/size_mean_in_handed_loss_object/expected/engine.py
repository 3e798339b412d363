import torch
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_per_rank_batch


def fit(model, train_set, criterion, epochs=2, batch=4):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
    loader = DataLoader(
        train_set,
        batch_size=ddp_per_rank_batch(batch),
        sampler=DistributedSampler(train_set, shuffle=True),
    )
    for epoch in range(epochs):
        loader.sampler.set_epoch(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
    return model
