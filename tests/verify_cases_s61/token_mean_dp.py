"""A per-token loss summed and divided by the count of real tokens in the whole batch
(contemn1/title_tagger@6b009e7's `loss.sum() / torch.sum(loss != 0, dtype=torch.float)`)."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
tokens = torch.randn(24, 6, 4)
lengths = torch.tensor([6, 1, 2, 6, 3, 1, 5, 2] * 3)
mask = (torch.arange(6)[None, :] < lengths[:, None]).float()
data = TensorDataset(tokens, torch.randn(24, 6), mask)
loader = DataLoader(data, batch_size=8)
model = nn.DataParallel(nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1)))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y, m in loader:
    per_token = (model(x).squeeze(-1) - y) ** 2 * m
    loss = per_token.sum() / torch.sum(m != 0, dtype=torch.float)
    opt.zero_grad()
    loss.backward()
    opt.step()
