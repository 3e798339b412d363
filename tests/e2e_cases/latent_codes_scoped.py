"""e2e case (fresh round stop 31, helper h; class D1, real-world: facebookresearch/
DeepSDF@48c19b8): per-sample latent codes, an nn.Embedding outside the wrapped model, trained
by the same optimizer in its own param-group dict, while another function has a parameter of
the same name. Migrated, ddp_sync_module(codes) follows the optimizer's statement. Before: the
other function's parameter blocked the proof, nothing was said, and each rank trained its own
codes on its own share. The final weights and codes are kept in E2E_DIGEST."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

E2E_DIGEST = []


def load_codes(path, codes):
    codes.load_state_dict(torch.load(path))


def main():
    torch.manual_seed(0)
    data = TensorDataset(torch.linspace(-1, 1, 48).view(16, 3), torch.arange(16))
    net = nn.DataParallel(nn.Sequential(nn.Linear(5, 4), nn.Tanh(), nn.Linear(4, 1)))
    codes = nn.Embedding(16, 2)
    optimizer = torch.optim.Adam(
        [{"params": net.parameters(), "lr": 0.01}, {"params": codes.parameters(), "lr": 0.05}]
    )
    for _epoch in range(2):
        for x, idx in DataLoader(data, batch_size=8):
            optimizer.zero_grad()
            loss = net(torch.cat([codes(idx), x], 1)).pow(2).mean()
            loss.backward()
            optimizer.step()
    E2E_DIGEST.extend([p.sum().item() for p in net.parameters()])
    E2E_DIGEST.extend(codes.weight.sum(1).tolist())


if __name__ == "__main__":
    main()
