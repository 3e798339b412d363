"""Stop 56 v2 (thuml/Koopa@a2e0bb7): a pass over the training data before training, with no
forward and no step (Koopa sums each batch's spectrum to pick its model's frequencies), from
a loader the factory builds again for training. The model is fed `x.float()` of float64
batches, so verify compares the DataLoader batches: the pass's 16 samples were counted into
step 1's batch ("10+10 ... the original's batch of 20")."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
train = TensorDataset(torch.randn(16, 4, dtype=torch.float64), torch.randn(16, 1))


def get_loader():
    return DataLoader(train, batch_size=4, shuffle=True)


def spectrum():
    amps = 0.0
    for x, _ in get_loader():
        amps = amps + abs(torch.fft.rfft(x, dim=1)).mean(0)
    return amps > amps.median()


mask = spectrum()
model = nn.DataParallel(nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in get_loader():
    loss = nn.functional.mse_loss(model(x.float()), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
