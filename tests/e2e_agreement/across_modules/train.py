"""A run directory named by another module's helper, and a checkpoint saved in another
module and loaded here (issue 29): one run directory, and the load sees rank 0's finished
checkpoint, whichever rank is slower (E2E_SLOW_RANK). A save folder named by the clock in
another module's options, as an attribute, made here: one folder."""

import os

import torch
import torch.nn as nn
import trainer
from naming import run_name
from options import get_options
from torch.utils.data import DataLoader, TensorDataset


def write_options(opts):
    os.makedirs(opts.save_dir)
    with open(os.path.join(opts.save_dir, "args.txt"), "w") as f:
        f.write(opts.run_name)


def main():
    write_options(get_options([]))
    save = os.path.join("runs", run_name("exp"))
    os.makedirs(save, exist_ok=True)
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(32, 4), torch.randint(0, 2, (32,)))
    loader = DataLoader(data, batch_size=8, shuffle=True)
    model = nn.DataParallel(nn.Linear(4, 2))
    trainer.fit(model, loader, save)
    model.load_state_dict(torch.load(os.path.join(save, "best.pt")))
    runs = os.listdir("runs")
    print("runs:", len(runs))


if __name__ == "__main__":
    main()
