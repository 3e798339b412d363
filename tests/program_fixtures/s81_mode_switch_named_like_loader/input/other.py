"""Another trainer of the program whose own method `train` may load a checkpoint and saves
the best one."""
import torch
import torch.nn as nn


class OtherTrainer:
    def train(self, epochs=2, start=None):
        net = nn.Linear(6, 1)
        if start is not None:
            net.load_state_dict(torch.load(start))
        model = nn.DataParallel(net)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        x, y = torch.randn(16, 6), torch.randn(16, 1)
        for _ in range(epochs):
            loss = nn.functional.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            model.train()
        torch.save(net.state_dict(), "other.pt")
        return net
