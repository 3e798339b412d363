"""Stop 59 v1-C (adntjr4/denoising_practice@b53363d): a Dataset adds noise to each sample in
a helper its `__init__` also calls (to keep noisy copies in memory when asked). dp2ddp
migrate puts the helper's draw in `with ddp_same_random():`, which also runs per sample:
every rank then draws rank 0's noise for its own samples. verify said "no known cause"."""

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class NoisyPoints(Dataset):
    def __init__(self, keep_on_mem=False):
        generator = torch.Generator().manual_seed(0)
        self.clean = torch.randn(24, 4, generator=generator)
        self.kept = [self.add_noise(x) for x in self.clean] if keep_on_mem else None

    def __len__(self):
        return len(self.clean)

    def __getitem__(self, index):
        clean = self.clean[index]
        noisy = self.kept[index] if self.kept is not None else self.add_noise(clean)
        return {"clean": clean, "noisy": noisy}

    def add_noise(self, clean):
        return clean + 0.5 * torch.randn(clean.shape)


loader = DataLoader(NoisyPoints(), batch_size=8, shuffle=True)
model = nn.DataParallel(nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 4)))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for batch in loader:
    loss = nn.functional.mse_loss(model(batch["noisy"]), batch["clean"])
    opt.zero_grad()
    loss.backward()
    opt.step()
