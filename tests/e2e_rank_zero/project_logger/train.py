"""Logs from two modules through a project logger (issue 10 item 3).

Rank 1 must log nothing but its own warning from the `except` handler: the INFO lines come
once, from rank 0, also those logged in trainer.py.
"""
import torch
import torch.nn as nn

from logs import get_logger
from trainer import make_loader, train_epoch

torch.manual_seed(0)
logger = get_logger("project_logger.main")
logger.info("start")
model = nn.DataParallel(nn.Linear(4, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = make_loader()
for epoch in range(2):
    train_epoch(model, loader, optimizer, epoch)
try:
    raise ValueError("this rank's own trouble")
except ValueError as exc:
    logger.warning("recovered: %s", exc)
logger.info("done")
