"""A model's own method that draws new weights, called through `.module` right after the
wrap (`model.module.init_weight()`: JojoFisherman/Neural-Machine-Translation-with-Attention@
bd34650's train.py, class v2-D of stop 61), which draws through its submodule's method in
another module (nn.init.xavier_uniform_, orthogonal_ over a generator of the LSTM's
weights) and a uniform_ fill of its head. The program seeds nothing: each process draws its
own weights. Now rank 0's are broadcast after the call (ddp_broadcast_module) and both
ranks end with the same weights (E2E_DIGEST). Before: no broadcast, no warning; each rank
trained from its own draw, apart from step 1 to the end. The random start state
init_hidden draws in the loop is no weight: no broadcast after the loop."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_broadcast_module,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)
from models import Tagger


def main():
    ddp_setup()
    sequences = torch.linspace(-1.0, 1.0, 96).reshape(32, 3, 1).repeat(1, 1, 4)
    targets = sequences.sum(dim=(1, 2)) * 0.1
    model = DistributedDataParallel(Tagger().to(DEVICE), device_ids=DEVICE_IDS)
    model.module.init_weight()
    ddp_broadcast_module(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    dataset = TensorDataset(sequences, targets)
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(8),
        sampler=DdpDistributedSampler(dataset, shuffle=False),
    )
    for epoch in range(2):
        for x, y in loader:
            hidden = model.module.init_hidden(x.shape[0])
            loss = ((model(x, hidden).squeeze(1) - y) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return [round(float(p.detach().sum()), 4) for p in model.parameters()]


if __name__ == "__main__":
    E2E_DIGEST = main()
    ddp_print("parameters %d" % len(E2E_DIGEST))
