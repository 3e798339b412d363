"""A model whose first input holds one value per sample, the same for all (ming024/
FastSpeech2@d4e79eb: `model(speakers, texts, ...)`, every speaker id 0 in a one-speaker
set). Its migration is right; verify used to hash the ids alone, found every rank's
samples "the same" and named a missing DistributedSampler."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(2, 3)
        self.fc = nn.Linear(3, 1)

    def forward(self, speakers, x):
        return self.fc(x + self.emb(speakers))


data = TensorDataset(torch.zeros(32, dtype=torch.long), torch.randn(32, 3), torch.randn(32, 1))
loader = DataLoader(data, batch_size=8, shuffle=True)
model = nn.DataParallel(Net())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _epoch in range(2):
    for s, x, y in loader:
        loss = nn.functional.mse_loss(model(s, x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
