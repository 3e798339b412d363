import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


def evaluate(model, data):
    with torch.no_grad():
        return model(data).sum().item()


def main():
    model = DistributedDataParallel(Net().to(DEVICE), device_ids=DEVICE_IDS)
    score = evaluate(model, torch.randn(8, 4).to(DEVICE))
    ddp_print("score", score)


if __name__ == "__main__":
    ddp_setup()
    main()
