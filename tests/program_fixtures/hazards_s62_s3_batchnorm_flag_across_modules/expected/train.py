import torch
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup
from models import Block


def main():
    ddp_setup()
    model = DistributedDataParallel(Block(norm=True).to(DEVICE), device_ids=DEVICE_IDS)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    data = torch.arange(128, dtype=torch.float32).view(8, 1, 4, 4) / 128
    for step in range(2):
        loss = model(data).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        ddp_print(f"step {step} loss {loss.item():.6f}")


if __name__ == "__main__":
    main()
