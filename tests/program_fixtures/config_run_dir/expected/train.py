import argparse

import torch
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_same_random,
    ddp_setup,
)
from parse_config import ConfigParser, scratch_dir


def main(config):
    ddp_setup()
    with ddp_same_random():
        data = TensorDataset(torch.randn(64, 8), torch.randint(0, 3, (64,)))
    loader = DataLoader(
        data,
        batch_size=ddp_per_rank_batch(8),
        sampler=DistributedSampler(data, shuffle=True),
    )
    model = DistributedDataParallel(
        torch.nn.Linear(8, 3).to(DEVICE), device_ids=DEVICE_IDS
    )
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(config["epochs"]):
        loader.sampler.set_epoch(epoch)
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        if ddp_is_main():
            torch.save(
                model.state_dict(), config.save_dir / f"checkpoint-epoch{epoch}.pth"
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--save_dir", default="saved")
    args = parser.parse_args()
    config = ConfigParser({"save_dir": args.save_dir, "epochs": 2})
    scratch_dir(args.save_dir, keep=False)
    main(config)
