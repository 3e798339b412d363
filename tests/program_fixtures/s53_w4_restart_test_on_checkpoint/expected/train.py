"""A restart test on the checkpoint the loop saves (SimonVandenhende/Multi-Task-Learning-
PyTorch@ed3d9ac main.py:76): with no checkpoint, the predictions are saved and scored before
training, and again each epoch."""
import os

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_barrier,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_print,
    ddp_rank0_value,
    ddp_setup,
)
from evaluation import score_all_results
from predictions import save_model_predictions


def main():
    ddp_setup()
    torch.manual_seed(0)
    p = {"save_dir": "results", "tasks": ["semseg", "depth"], "checkpoint": "last.pth", "epochs": 2}
    x = torch.randn(16, 3)
    y = x.sum(1, keepdim=True)
    dataset = TensorDataset(x, y)
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(4),
        sampler=DdpDistributedSampler(dataset, shuffle=False),
    )
    model = DistributedDataParallel(nn.Linear(3, 2).to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    if ddp_rank0_value(os.path.exists, p["checkpoint"]):
        checkpoint = torch.load(p["checkpoint"], map_location="cpu")
        model.load_state_dict(checkpoint["model"])
        start_epoch = checkpoint["epoch"]
        best = checkpoint["best"]
    else:
        start_epoch = 0
        save_model_predictions(p, x, model)
        ddp_barrier()
        best = score_all_results(p)
        ddp_print("start semseg %.4f depth %.4f" % (best["semseg"], best["depth"]))
    for epoch in range(start_epoch, p["epochs"]):
        for xb, yb in loader:
            loss = ((model(xb) - yb) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        save_model_predictions(p, x, model)
        ddp_barrier()
        results = score_all_results(p)
        if ddp_is_main():
            print(
                "epoch %d semseg %.4f depth %.4f" % (
                    epoch, results["semseg"], results["depth"]
                ),
            )
            torch.save(
                {"model": model.state_dict(), "epoch": epoch + 1, "best": best},
                p["checkpoint"],
            )
        ddp_barrier()
    ddp_print("weights %.4f" % sum(q.sum().item() for q in model.parameters()))


if __name__ == "__main__":
    main()
