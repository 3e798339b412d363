import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)
from evaluate import score


def main():
    ddp_setup()
    torch.manual_seed(0)
    x = torch.randn(32, 4)
    y = (x.sum(1, keepdim=True) > 0).float()
    train_dataset = TensorDataset(x[:16], y[:16])
    train_loader = DataLoader(
        train_dataset,
        batch_size=ddp_per_rank_batch(8),
        sampler=DdpDistributedSampler(train_dataset, shuffle=False),
    )
    # dp2ddp: DP015 evaluation metrics not reduced
    mapping_loader = DataLoader(TensorDataset(x[16:], y[16:]), batch_size=8, shuffle=True)
    model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    for epoch in range(2):
        for xb, yb in train_loader:
            loss = nn.functional.binary_cross_entropy_with_logits(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
        ddp_print("epoch %d accuracy %.4f" % (epoch, score(model, mapping_loader)))
    ddp_print("weights %.4f" % model.module.weight.sum().item())


if __name__ == "__main__":
    main()
