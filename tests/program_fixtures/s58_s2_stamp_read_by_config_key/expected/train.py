"""The run folder is named by the config's stamp, read by key: the checkpoint saved there,
then loaded back on every rank."""
import os

import torch
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_barrier,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)
from settings import RunConfig

ddp_setup()


def train(config):
    run_name = config["run_name"]
    folder = os.path.join("runs", run_name)
    os.makedirs(folder, exist_ok=True)
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(32, 4), torch.randn(32, 1))
    loader = DataLoader(
        data,
        batch_size=ddp_per_rank_batch(config["batch"]),
        sampler=DdpDistributedSampler(data, shuffle=False),
    )
    model = DistributedDataParallel(
        torch.nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS
    )
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(config["epochs"]):
        for x, y in loader:
            loss = ((model(x) - y) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        if ddp_is_main():
            torch.save(model.state_dict(), os.path.join(folder, "last.pth"))
    ddp_barrier()
    state = torch.load(os.path.join(folder, "last.pth"), map_location=DEVICE)
    ddp_print(
        "folders %d weights %.4f" % (
            len(os.listdir("runs")), state["module.weight"].sum()
        ),
    )


if __name__ == "__main__":
    config = RunConfig()
    config.finish()
    train(config)
