import torch
import torch.nn as nn


class Trainer:
    def __init__(self):
        torch.manual_seed(0)
        self.model = nn.DataParallel(nn.Linear(4, 2))
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def fit(self):
        g = torch.Generator().manual_seed(1)
        data = torch.utils.data.TensorDataset(
            torch.randn(16, 4, generator=g), torch.randn(16, 2, generator=g)
        )
        for x, y in torch.utils.data.DataLoader(data, batch_size=4):
            loss = nn.functional.mse_loss(self.model(x), y)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
        print("weights %.4f" % self.model.module.weight.sum().item())
