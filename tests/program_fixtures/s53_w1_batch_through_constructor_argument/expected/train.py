import argparse
import string

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup
from dataset import BalancedBatches

ddp_setup()


def train(opt):
    torch.manual_seed(0)
    model = DistributedDataParallel(
        nn.Linear(4, len(opt.character)).to(DEVICE), device_ids=DEVICE_IDS
    )
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.CrossEntropyLoss()
    train_dataset = BalancedBatches(opt)
    for iteration in range(opt.num_iter):
        image, labels = train_dataset.get_batch()
        # dp2ddp: DP047 a batch reaching the model is not proved to be this rank's part
        preds = model(image)
        cost = criterion(preds, labels)
        model.zero_grad()
        cost.backward()
        optimizer.step()
    ddp_print(f"weights {model.module.weight.sum().item():.4f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_iter", type=int, default=6)
    parser.add_argument("--batch_size", type=int, default=4)
    opt = parser.parse_args()
    opt.parts = [16, 16]
    opt.character = string.printable[:-6]
    train(opt)
