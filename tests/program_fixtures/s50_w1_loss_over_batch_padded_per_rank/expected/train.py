import torch
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_per_rank_batch, ddp_print, ddp_setup
from data import Frames, PadCollate


def main():
    ddp_setup()
    torch.manual_seed(0)
    model = DistributedDataParallel(
        torch.nn.Linear(3, 1).to(DEVICE), device_ids=DEVICE_IDS
    )
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    dataset = Frames(16)
    loader = torch.utils.data.DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(4),
        sampler=DistributedSampler(dataset, shuffle=True),
        collate_fn=PadCollate(),
    )
    for epoch in range(2):
        loader.sampler.set_epoch(epoch)
        for inputs, targets in loader:
            optimizer.zero_grad()
            loss = F.mse_loss(model(inputs), targets)
            loss.backward()
            optimizer.step()
        ddp_print(epoch, loss.item())


if __name__ == "__main__":
    main()
