import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_barrier,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)
from submission import official_evaluate, rescore, write_submission


def main():
    ddp_setup()
    torch.manual_seed(0)
    x = torch.randn(16, 3)
    y = x.sum(1, keepdim=True)
    dataset = TensorDataset(x, y)
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(4),
        sampler=DdpDistributedSampler(dataset, shuffle=False),
    )
    model = DistributedDataParallel(nn.Linear(3, 1).to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        for xb, yb in loader:
            loss = ((model(xb) - yb) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            rows = model(x).squeeze(1).tolist()
        submission_path = "submission_%d.txt" % epoch
        write_submission(rows, submission_path)
        ddp_barrier()
        total = official_evaluate(submission_path)
        best = rescore(rows, "scores_%d.txt" % epoch)
        ddp_print("epoch %d total %.4f best %.4f" % (epoch, total, best))
    ddp_print("weights %.4f" % sum(p.sum().item() for p in model.parameters()))


if __name__ == "__main__":
    main()
