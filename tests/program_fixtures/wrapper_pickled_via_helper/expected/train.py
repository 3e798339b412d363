import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

import ckpt
from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_same_random,
    ddp_setup,
)
from ckpt import save_checkpoint, save_weights


def main():
    ddp_setup()
    torch.manual_seed(0)
    model = nn.Linear(4, 2)
    model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with ddp_same_random():
        data = TensorDataset(torch.randn(16, 4), torch.randint(0, 2, (16,)))
    loader = DataLoader(
        data,
        batch_size=ddp_per_rank_batch(4),
        sampler=DdpDistributedSampler(data, shuffle=False),
    )
    for epoch in range(2):
        for x, y in loader:
            loss = nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        save_checkpoint(epoch, model.module, optimizer)
    save_weights(path="weights.pkl", model=model.module)
    ddp_print("final", [round(v, 5) for v in model.module.weight.flatten().tolist()])
    # dp2ddp: DP070 the wrapped model is pickled whole
    score = ckpt.save_and_score(model, torch.ones(2, 4), "scored.pth")
    ddp_print("score", round(score, 5))


if __name__ == "__main__":
    main()
