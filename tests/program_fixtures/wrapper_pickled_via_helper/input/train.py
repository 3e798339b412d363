import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import ckpt
from ckpt import save_checkpoint, save_weights


def main():
    torch.manual_seed(0)
    model = nn.Linear(4, 2)
    model = nn.DataParallel(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    data = TensorDataset(torch.randn(16, 4), torch.randint(0, 2, (16,)))
    loader = DataLoader(data, batch_size=4, shuffle=False)
    for epoch in range(2):
        for x, y in loader:
            loss = nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        save_checkpoint(epoch, model, optimizer)
    save_weights(path="weights.pkl", model=model)
    print("final", [round(v, 5) for v in model.module.weight.flatten().tolist()])
    score = ckpt.save_and_score(model, torch.ones(2, 4), "scored.pth")
    print("score", round(score, 5))


if __name__ == "__main__":
    main()
