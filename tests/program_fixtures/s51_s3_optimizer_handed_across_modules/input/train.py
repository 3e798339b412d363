import torch
import torch.nn as nn

from losses import LossCompute, WarmupOpt


def main():
    torch.manual_seed(0)
    model = nn.DataParallel(nn.Linear(4, 2))
    optimizer = WarmupOpt(torch.optim.SGD(model.parameters(), lr=0.1), 10)
    compute = LossCompute(nn.MSELoss(), optimizer)
    data = torch.utils.data.TensorDataset(torch.randn(16, 4), torch.randn(16, 2))
    loader = torch.utils.data.DataLoader(data, batch_size=4, shuffle=True)
    for epoch in range(2):
        for x, y in loader:
            print(compute(model(x), y))


if __name__ == "__main__":
    main()
