"""e2e case (fresh round stop 30, helper s; class S1, real-world: tjddus9597/
Proxy-Anchor-CVPR2020@51db570): a loss module with trainable class proxies, outside the
wrapped model, trained by the same optimizer in its own param group. DataParallel computed
the loss once on the gathered batch; migrated, ddp_sync_module(criterion) averages the
proxies' gradients over the ranks. Before: each rank stepped on its own half's gradient and
the proxies drifted apart (the model's weights in sync, but not the original's). The final
weights and proxies are kept in E2E_DIGEST."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class ProxyLoss(nn.Module):
    def __init__(self, classes, dim):
        super().__init__()
        self.proxies = nn.Parameter(torch.randn(classes, dim))

    def forward(self, emb, y):
        return ((emb - self.proxies[y]) ** 2).sum(1).mean()


E2E_DIGEST = []


def main():
    torch.manual_seed(0)
    data = TensorDataset(torch.linspace(-1, 1, 96).view(32, 3), torch.arange(32) % 4)
    model = nn.Sequential(nn.Linear(3, 6), nn.Tanh(), nn.Linear(6, 2))
    model = nn.DataParallel(model)
    criterion = ProxyLoss(4, 2)
    param_groups = [{"params": model.parameters()}]
    param_groups.append({"params": criterion.parameters(), "lr": 0.5})
    optimizer = torch.optim.SGD(param_groups, lr=0.1)
    for _epoch in range(2):
        for x, y in DataLoader(data, batch_size=8):
            loss = criterion(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_value_(criterion.parameters(), 10)
            optimizer.step()
    E2E_DIGEST.extend([p.sum().item() for p in model.parameters()])
    E2E_DIGEST.extend(criterion.proxies.sum(1).tolist())


if __name__ == "__main__":
    main()
