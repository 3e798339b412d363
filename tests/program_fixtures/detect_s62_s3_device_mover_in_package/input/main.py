import torch
import torch.nn as nn

import utils


def main():
    device = utils.GpuDataParallel()
    device.set_device(None)
    model = nn.DataParallel(nn.Linear(4, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    data = torch.arange(32, dtype=torch.float32).view(8, 4) / 32
    for step in range(2):
        x = device.data_to_device(data)
        loss = model(x).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
