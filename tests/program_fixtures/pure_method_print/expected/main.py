"""The validation metrics printed through a static method of a project class
(VainF/DeepLabV3Plus-Pytorch's `print(metrics.to_str(val_score))`): it only builds a string,
so the print goes to rank 0. `metrics.update(...)` changes the metrics: a print of it stays
on every rank."""
import numpy as np
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup
from metrics import StreamSegMetrics


def main():
    ddp_setup()
    model = DistributedDataParallel(nn.Linear(4, 3).to(DEVICE), device_ids=DEVICE_IDS)
    metrics = StreamSegMetrics(3)
    with torch.no_grad():
        preds = model(torch.ones(2, 4)).argmax(1).numpy()
    ddp_print("pixels", metrics.update([np.array([0, 1])], [preds]))
    val_score = metrics.get_results()
    ddp_print(metrics.to_str(val_score))


if __name__ == "__main__":
    main()
