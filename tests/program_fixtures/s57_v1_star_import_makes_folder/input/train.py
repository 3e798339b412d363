import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from base_train import train
from util import run_folder, weights_sum

if __name__ == "__main__":
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(16, 4), torch.randn(16, 2))
    loader = DataLoader(data, batch_size=4, shuffle=False)
    model = nn.DataParallel(nn.Linear(4, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    train(run_folder("exp"), loader, model, optimizer, 2)
    print("weights %.4f" % weights_sum(model))
