import torch

import model.utils as model_utils
from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_same_random,
    ddp_setup,
    ddp_shard_batch,
)
from model.nets import Separator


def main():
    ddp_setup()
    torch.manual_seed(0)
    model = Separator(["bass", "vocals"])
    # dp2ddp: DP041 some parameters may get no gradient: find_unused_parameters=True
    model = model_utils.DataParallel(
        model.to(DEVICE), device_ids=DEVICE_IDS, find_unused_parameters=True
    )
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with ddp_same_random():
        data = torch.utils.data.TensorDataset(torch.randn(16, 4), torch.randn(16, 2))
    loader = torch.utils.data.DataLoader(
        data,
        batch_size=ddp_per_rank_batch(4),
        sampler=DdpDistributedSampler(data, shuffle=False),
    )
    for x, y in loader:
        opt.zero_grad()
        for inst in model.instruments:
            inst = ddp_shard_batch(inst, source=model.instruments)
            loss = ((model(x, inst)[inst] - y) ** 2).mean()
            loss.backward()
        opt.step()
    model_utils.save_model(model, "model.pt")
    ddp_print(
        "weights", round(sum(p.sum().item() for p in model.module.parameters()), 4)
    )


if __name__ == "__main__":
    main()
