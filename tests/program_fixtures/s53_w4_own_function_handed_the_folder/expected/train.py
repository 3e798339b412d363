import torch
import torch.nn as nn
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
from scores import save_scores, validate_results


def main():
    ddp_setup()
    torch.manual_seed(0)
    p = {"save_dir": "results", "tasks": ["a", "b"]}
    x = torch.randn(16, 3)
    y = torch.cat([x.sum(1, keepdim=True), x.mean(1, keepdim=True)], 1)
    dataset = TensorDataset(x, y)
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(4),
        sampler=DdpDistributedSampler(dataset, shuffle=False),
    )
    model = DistributedDataParallel(nn.Linear(3, 2).to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    best = {}
    for epoch in range(3):
        for xb, yb in loader:
            loss = ((model(xb) - yb) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            errors = ((model(x) - y) ** 2).mean(0)
        scores = {"a": errors[0].item(), "b": errors[1].item()}
        if scores["a"] < 10:
            save_scores(p, scores)
            improves, best = validate_results(p, scores, best)
            ddp_print(
                "epoch %d a %.4f b %.4f improves %s" % (
                    epoch, scores["a"], scores["b"], improves
                ),
            )
    ddp_print("weights %.4f" % sum(q.sum().item() for q in model.parameters()))


if __name__ == "__main__":
    main()
