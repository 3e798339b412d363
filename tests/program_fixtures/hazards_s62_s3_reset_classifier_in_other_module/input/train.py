import torch
import torch.nn as nn
import torch.nn.functional as F

from models.maml import MAML


def main():
    torch.manual_seed(0)
    model = nn.DataParallel(MAML(4, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    data = torch.arange(32, dtype=torch.float32).view(8, 4) / 32
    labels = torch.tensor([0, 1, 0, 1, 1, 0, 1, 0])
    for step in range(2):
        model.module.reset_classifier()
        loss = F.cross_entropy(model(data), labels) - 0.1 * model.module.confidence(data)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step} loss {loss.item():.6f}")


if __name__ == "__main__":
    main()
