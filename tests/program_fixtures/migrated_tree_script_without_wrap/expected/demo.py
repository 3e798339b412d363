import torch

from config import device
from data import dataset

if __name__ == "__main__":
    model = torch.nn.Linear(4, 1).to(device)
    x, _ = dataset[0]
    print("demo", tuple(model(x.to(device)).shape))
