"""The program's own device named as the setup's, `DEVICE = torch.device("cuda:0" if ...
else "cpu")` (JojoFisherman/Neural-Machine-Translation-with-Attention@bd34650's train.py,
class v2-A of stop 61), at module level here and in a function of scoring.py. The device
pass made it `DEVICE = DEVICE`: at module level the generated module's DEVICE was then not
imported (the module binds the name: NameError at import on every rank, DP014); in a
function the name is local, read before it is bound (UnboundLocalError, no warning). Now
the statement goes where it is the name's only binding in its scope and DEVICE is the
setup's; scoring.score_on, which binds its DEVICE twice, keeps it and says DP014."""
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
from scoring import score


def main():
    ddp_setup()
    torch.manual_seed(0)
    features = torch.randn(32, 4)
    targets = features @ torch.tensor([1.0, -2.0, 0.5, 3.0]) + 0.1
    model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    dataset = TensorDataset(features, targets)
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(8),
        sampler=DdpDistributedSampler(dataset, shuffle=False),
    )
    for epoch in range(2):
        for x, y in loader:
            x, y = x.to(DEVICE), y.to(DEVICE)
            loss = ((model(x).squeeze(1) - y) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    ddp_print("error %.4f" % score(model, features, targets))
    ddp_print(
        "weights %.4f" % float(sum((p.detach() ** 2).sum() for p in model.parameters()))
    )


if __name__ == "__main__":
    main()
