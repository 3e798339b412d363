"""A checkpoint named by each rank's clock, saved (on rank 0 once migrated) and loaded by
another module through an attribute (PatrickHua/SimSiam@75a7c51): the name is rank 0's on
every rank, and every rank waits for the save before the other module loads it. Module
`main` and both modules' `main()` are three things (a call of linear_eval's main() is no
call of this one)."""

import argparse
from datetime import datetime

import torch
import torch.nn as nn
from linear_eval import main as linear_eval
from torch.utils.data import DataLoader, TensorDataset


def main(args):
    loader = DataLoader(TensorDataset(torch.randn(64, 4), torch.randn(64, 1)), batch_size=8)
    model = nn.DataParallel(nn.Linear(4, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        for x, y in loader:
            loss = ((model(x) - y) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    model_path = f"ckpt_{datetime.now().strftime('%H%M%S%f')}.pth"
    torch.save(model.module.state_dict(), model_path)
    if args.eval is not False:
        args.eval_from = model_path
        linear_eval(args)


if __name__ == "__main__":
    main(argparse.Namespace(eval=True, eval_from=None))
