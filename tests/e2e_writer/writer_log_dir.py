"""The writer creates the run directory; every rank then writes into it.

meetps/pytorch-semseg@801fb20 (train.py and ptsemseg/utils.get_logger): the run directory is
named by an unseeded random draw, created by `SummaryWriter(log_dir=logdir)`, then the config
is copied into it and a file logger opened there. With the writer on rank 0 only, rank 1
found no directory and crashed (NotADirectoryError / FileNotFoundError).
"""

import argparse
import logging
import os
import random
import shutil

import torch
from tensorboardX import SummaryWriter
from torch.utils.data import DataLoader, TensorDataset


def get_logger(logdir):
    logger = logging.getLogger("run")
    logger.addHandler(logging.FileHandler(os.path.join(logdir, "run.log")))
    logger.setLevel(logging.INFO)
    return logger


def train(writer, logger):
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(64, 8), torch.randint(0, 3, (64,)))
    loader = DataLoader(data, batch_size=8, shuffle=True)
    model = torch.nn.DataParallel(torch.nn.Linear(8, 3))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        writer.add_scalar("loss", loss.item(), epoch)
        print("epoch", epoch)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="config.yml")
    args = parser.parse_args()
    with open(args.config, "w") as config:
        config.write("lr: 0.1\n")
    run_id = random.randint(1, 100000)
    logdir = os.path.join("runs", str(run_id))
    writer = SummaryWriter(log_dir=logdir)
    shutil.copy(args.config, logdir)
    logger = get_logger(logdir)
    train(writer, logger)
    writer.close()
