"""Logs and console output written once (issue 10 items 2 and 3).

A CSV log opened with "w"/"a", an epoch log reopened with "a+", a JSON summary, a progress helper writing with
sys.stdout.write, pprint, a print of a method of the script's own class that only
reads `self` (VainF/DeepLabV3Plus-Pytorch's `print(metrics.to_str(...))`), prints of string
methods (`key.capitalize()`, `str(data.__len__())`), a log file every process configures
with filemode "w", one of them a second late: the files and
the console must read as plain python's, and rank 1 must print nothing.
"""

import json
import logging
import os
import sys
import time
from pprint import pprint

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def progress_bar(current, total, msg):
    sys.stdout.write(f" [{current + 1}/{total}] {msg}\n")
    sys.stdout.flush()


class Settings:
    def __init__(self, lr, epochs):
        self.lr = lr
        self.epochs = epochs

    def describe(self):
        return "lr %.2f for %d epochs" % (self.lr, self.epochs)


torch.manual_seed(0)
settings = Settings(0.1, 2)
print(settings.describe())
os.makedirs("runs", exist_ok=True)
with open("runs/log.csv", "w") as f:
    f.write("epoch,step\n")
pprint({"lr": 0.1, "epochs": 2})
data = TensorDataset(torch.randn(64, 4), torch.randint(0, 2, (64,)))
# string methods only build text (srviest/char-cnn-text-classification-pytorch@f269894)
print("\nNumber of training samples: {}".format(str(data.__len__())))
for key, value in sorted({"batch_size": 16, "learning_rate": 0.1}.items()):
    print("\t{}:".format(key.capitalize().replace("_", " ")).ljust(18) + "{}".format(value))
loader = DataLoader(data, batch_size=16, shuffle=True)
model = nn.DataParallel(nn.Linear(4, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
# a log file every process configures with "w" (gentaiscool/end2end-asr-pytorch@2f78c6b's
# `logging.basicConfig(filename=..., filemode='w+')`); a second process comes a second late
if os.environ.get("RANK") == "1":
    time.sleep(1.0)
logging.basicConfig(filename="runs/train.log", filemode="w", format="%(message)s", level=20)
logging.info("start")
log = open("runs/steps.txt", "a")
for epoch in range(2):
    # an epoch log reopened "a+" for each entry (MILVLG/mcan-vqa@6b165e9 core/exec.py, stop 42
    # v3-C): the name's rebinding is no read, so each open is rank 0's
    epoch_log = open("runs/epochs.txt", "a+")
    epoch_log.write(f"epoch {epoch} starts\n")
    epoch_log.close()
    for i, (x, y) in enumerate(loader):
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        log.write(f"{epoch} {loss.item() > 0}\n")
    progress_bar(epoch, 2, "epoch")
    logging.info("epoch %d", epoch)
    sys.stdout.write(f"epoch {epoch} done\n")
    with open("runs/log.csv", "a") as f:
        f.write(f"{epoch},done\n")
    epoch_log = open("runs/epochs.txt", "a+")
    epoch_log.write(f"epoch {epoch} done\n")
    epoch_log.close()
log.close()
json.dump({"epochs": 2}, open("runs/summary.json", "w"))
