import torch
from torch import nn
from torch.nn import DataParallel


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


def evaluate(model, data):
    with torch.no_grad():
        return model(data).sum().item()


def main():
    model = DataParallel(Net()).to(torch.device("cuda"))
    score = evaluate(model, torch.randn(8, 4).cuda())
    print("score", score)


if __name__ == "__main__":
    main()
