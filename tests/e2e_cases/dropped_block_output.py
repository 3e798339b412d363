"""Flow blocks each return (residual output, skip output); the model sums the skips and reads
each block's residual output only as the next block's input, so the last block's is dropped
and its `res` layer gets no gradient (the shape of FloWaveNet's last flow). DataParallel
trains it; DDP fails at the second step ("Expected to have finished reduction in the prior
iteration") unless the wrap gets find_unused_parameters=True (DP041)."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.res = nn.Linear(4, 4)
        self.skip = nn.Linear(4, 4)

    def forward(self, x):
        return x + torch.tanh(self.res(x)), self.skip(x)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block() for _ in range(3)])

    def forward(self, x):
        skip = 0
        for block in self.blocks:
            x, s = block(x)
            skip = skip + s
        return skip


torch.manual_seed(0)
dataset = TensorDataset(torch.randn(32, 4), torch.randn(32, 4))
loader = DataLoader(dataset, batch_size=8, shuffle=True)
model = nn.DataParallel(Net())
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
steps = 0
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        steps += 1
    print(f"epoch {epoch} done")
print("steps", steps)
E2E_DIGEST = [steps] + [round(float(p.detach().sum()), 5) for p in model.parameters()]
