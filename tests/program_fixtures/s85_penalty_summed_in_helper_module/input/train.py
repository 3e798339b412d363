# The critic's gradient penalty summed over the batch's rows in another module's helper
# (round 39 rerun, tomguluson92/StyleGAN_PyTorch@4fd0711's loss/loss.py): the sum reaches
# backward() here, over this rank's rows only: DP004 says so (before: nothing, the
# gradient's rows were not followed to the helper's parameter).
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from penalties import slope_penalty

torch.manual_seed(0)
critic = nn.DataParallel(nn.Sequential(nn.Linear(5, 12), nn.Tanh(), nn.Linear(12, 1)))
optimizer = torch.optim.SGD(critic.parameters(), lr=0.02)
images = DataLoader(TensorDataset(torch.randn(24, 5)), batch_size=6)
for epoch in range(2):
    for (real,) in images:
        optimizer.zero_grad()
        loss = nn.functional.softplus(-critic(real)).mean() + 5.0 * slope_penalty(real, critic)
        loss.backward()
        optimizer.step()
print("weights %.6f" % sum(p.sum().item() for p in critic.parameters()))
