import torch
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_setup
from episodes import episode_stream
from framework import Framework


def main():
    ddp_setup()
    torch.manual_seed(0)
    model = DistributedDataParallel(
        torch.nn.Linear(2, 2).to(DEVICE), device_ids=DEVICE_IDS
    )
    Framework(episode_stream(4)).train(model, 3)


if __name__ == "__main__":
    main()
