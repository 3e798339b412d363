import torch
import torch.nn as nn
from torch.utils.data import TensorDataset

from data import PairDataLoader
from solver import Solver


def main():
    torch.manual_seed(0)
    tr = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
    cv = TensorDataset(torch.randn(8, 4), torch.randn(8, 1))
    tr_loader = PairDataLoader(tr, batch_size=4, shuffle=True)
    cv_loader = PairDataLoader(cv, batch_size=4)
    data = {"tr_loader": tr_loader, "cv_loader": cv_loader}
    model = nn.DataParallel(nn.Linear(4, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    Solver(data, model, optimizer).train(2)


if __name__ == "__main__":
    main()
