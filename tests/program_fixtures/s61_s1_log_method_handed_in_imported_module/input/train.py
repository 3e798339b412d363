"""The entry of s61_s1_log_method_handed_in_imported_module: its first import runs a module
whose import-time code logs the parameters through `config.print_params(logger.info)`
(round 13 v4-A). Every rank imports it before ddp_setup() (first thing in main()): the
generated module now drops rank 1's log records when imported (before: in ddp_setup(),
too late, and the log file held the parameters block twice)."""
from setup_log import config, logger

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def main():
    logger.info("training start")
    torch.manual_seed(0)
    model = nn.DataParallel(nn.Linear(4, 1))
    data = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
    loader = DataLoader(data, batch_size=8)
    opt = torch.optim.SGD(model.parameters(), lr=config.lr)
    for epoch in range(config.epochs):
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
    print("weights %.4f" % sum(p.sum().item() for p in model.parameters()))


if __name__ == "__main__":
    main()
