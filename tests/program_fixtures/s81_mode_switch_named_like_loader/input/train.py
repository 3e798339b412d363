"""`model.train()` of the wrapped model is nn.Module's mode switch, not a call of another
module's `OtherTrainer.train`, which loads a checkpoint (round 34, thunlp/DocRED@64622e6:
the two share the name; before, a false DP031 "checkpoint loaded without a barrier" at
`model.train()`)."""
import torch
import torch.nn as nn

from other import OtherTrainer

X, Y = torch.randn(16, 6), torch.randn(16, 1)


class Trainer:
    def batches(self):
        for i in range(0, 16, 4):
            yield X[i : i + 4], Y[i : i + 4]

    def train(self, epochs=2, start=None):
        net = nn.Linear(6, 1)
        if start is not None:
            net.load_state_dict(torch.load(start))
        model = nn.DataParallel(net)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        best = float("inf")
        for epoch in range(epochs):
            for x, y in self.batches():
                loss = nn.functional.mse_loss(model(x), y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            model.eval()
            with torch.no_grad():
                score = nn.functional.mse_loss(model(X), Y).item()
            model.train()
            if score < best:
                best = score
                torch.save(net.state_dict(), "best.pt")
        return net


torch.manual_seed(0)
trainer = Trainer() if len(X) else OtherTrainer()
net = trainer.train()
print("weights", round(sum(p.sum().item() for p in net.parameters()), 6))
