"""A memory bank, a buffer of a module without parameters, moved in a custom autograd
Function's backward by the batch's rows (zhirongw/lemniscate.pytorch's NCE average; stop 28,
G5): under DDP each rank moves only its part's rows, the bank goes apart after step 1 and the
parameters follow at step 2. verify names the bank (V3), not float rounding."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class Indexed(Dataset):  # instance discrimination: the target of sample i is i
    def __init__(self):
        self.x = torch.randn(32, 8, generator=torch.Generator().manual_seed(0))

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], i


class Similarity(torch.autograd.Function):  # the bank is updated in backward, as NCE codes do
    @staticmethod
    def forward(ctx, f, bank, idx):
        ctx.save_for_backward(f, bank, idx)
        return f @ bank.t() / 0.1

    @staticmethod
    def backward(ctx, grad):
        f, bank, idx = ctx.saved_tensors
        grad_f = grad @ bank / 0.1
        bank.index_copy_(0, idx, F.normalize(bank[idx] + f, dim=1))  # the batch's rows move
        return grad_f, None, None


class MemoryBank(nn.Module):  # one stored feature per training sample, not a parameter
    def __init__(self, n, d):
        super().__init__()
        self.register_buffer("bank", F.normalize(torch.ones(n, d), dim=1))

    def forward(self, f, idx):
        return Similarity.apply(f, self.bank, idx)


torch.manual_seed(0)
loader = DataLoader(Indexed(), batch_size=8, shuffle=False)
model = nn.DataParallel(nn.Linear(8, 4))
memory = MemoryBank(32, 4)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for x, idx in loader:
        loss = F.cross_entropy(memory(model(x), idx), idx)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch}")
print("bank checksum", memory.bank.sum().item())
