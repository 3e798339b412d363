import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from trainer import Trainer


def main():
    torch.manual_seed(0)
    encoder = nn.Sequential(nn.Linear(6, 4), nn.Tanh())
    trainer = Trainer(encoder, 3, {"ngpu": 2, "smooth": True})
    data = TensorDataset(torch.randn(16, 6), torch.randint(0, 3, (16,)))
    loader = DataLoader(data, batch_size=8, shuffle=False)
    for epoch in range(2):
        for x, y in loader:
            loss = trainer.step(x, y)
        print(epoch, round(loss, 6))
    print("weights %.5f" % sum(p.sum().item() for p in encoder.parameters()))


if __name__ == "__main__":
    main()
