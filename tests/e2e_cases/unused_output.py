"""The model returns an output the training loop's loss leaves out (a stop-token head: the
shape of soobinseo/Transformer-TTS@87bd9c9, whose loop unpacks `stop_preds` and never uses
it): the head's layer gets no gradient. DataParallel trains it; DDP fails at the second
step ("Expected to have finished reduction in the prior iteration") unless the wrap gets
find_unused_parameters=True (DP041, read at the call of the wrapped model)."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.mel = nn.Linear(4, 4)
        self.stop = nn.Linear(4, 1)

    def forward(self, h):
        return self.mel(h), self.stop(h)


class Net(nn.Module):
    """Returns what it unpacks from its decoder, as Transformer-TTS's Model does."""

    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 4)
        self.decoder = Decoder()

    def forward(self, x):
        mel, stop = self.decoder(self.body(x))
        return mel, stop


torch.manual_seed(0)
data = TensorDataset(torch.randn(32, 4), torch.randn(32, 4))
model = nn.DataParallel(Net())
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
steps = 0
for _epoch in range(2):
    for x, y in DataLoader(data, batch_size=8, shuffle=False):
        out, stop = model(x)
        loss = F.l1_loss(out, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        steps += 1
print("steps", steps)
E2E_DIGEST = [steps] + [round(float(p.detach().sum()), 5) for p in model.parameters()]
