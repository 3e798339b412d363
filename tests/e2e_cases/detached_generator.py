"""Fresh round stop 30, class U2 (daa233/generative-inpainting-pytorch@c6cdaea): a generator
and its critic in one wrapped module, the critic's loss on the generator's output detached.
DataParallel did not mind that the generator got no gradient; DDP failed at step 2 ("Expected
to have finished reduction in the prior iteration"), with no warning. Now DP041 and
find_unused_parameters=True: to the end, the original's weights."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class CriticStep(nn.Module):
    def __init__(self):
        super().__init__()
        self.gen = nn.Linear(4, 4)
        self.critic = nn.Linear(4, 1)

    def forward(self, x):
        fake = self.gen(x)
        return (self.critic(fake.detach()) - self.critic(x)).mean()


torch.manual_seed(0)
data = TensorDataset(torch.randn(32, 4))
loader = DataLoader(data, batch_size=8, shuffle=False)
model = nn.DataParallel(CriticStep())
optimizer = torch.optim.SGD(model.module.critic.parameters(), lr=0.1)
for _epoch in range(2):
    for (x,) in loader:
        optimizer.zero_grad()
        model(x).backward()
        optimizer.step()
E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in model.module.parameters()]
print("final", E2E_DIGEST)
