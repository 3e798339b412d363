import torch
from torch.nn import DataParallel

from test import *

if __name__ == "__main__":
    model = DataParallel(Net())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(3):
        optimizer.zero_grad()
        model(torch.randn(8, 4)).sum().backward()
        optimizer.step()
    score = evaluate(model, torch.randn(8, 4))
    print("score", score)
