import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset

from model import Trainer

parser = argparse.ArgumentParser()
parser.add_argument("--batch_size", type=int, default=4)
opt = parser.parse_args()
loader = DataLoader(
    TensorDataset(torch.randn(16, 4), torch.randn(16, 1)), batch_size=opt.batch_size, shuffle=True
)
trainer = Trainer(opt)
for epoch in range(2):
    for batch in loader:
        trainer.set_input(batch)
        if not trainer.is_train():
            print("skip this batch")
            continue
        trainer.optimize()
