"""A restart test on the checkpoint the loop saves (SimonVandenhende/Multi-Task-Learning-
PyTorch@ed3d9ac main.py:76): with no checkpoint, the predictions are saved and scored before
training, and again each epoch."""
import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from evaluation import score_all_results
from predictions import save_model_predictions


def main():
    torch.manual_seed(0)
    p = {"save_dir": "results", "tasks": ["semseg", "depth"], "checkpoint": "last.pth", "epochs": 2}
    x = torch.randn(16, 3)
    y = x.sum(1, keepdim=True)
    loader = DataLoader(TensorDataset(x, y), batch_size=4, shuffle=False)
    model = nn.DataParallel(nn.Linear(3, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    if os.path.exists(p["checkpoint"]):
        checkpoint = torch.load(p["checkpoint"], map_location="cpu")
        model.load_state_dict(checkpoint["model"])
        start_epoch = checkpoint["epoch"]
        best = checkpoint["best"]
    else:
        start_epoch = 0
        save_model_predictions(p, x, model)
        best = score_all_results(p)
        print("start semseg %.4f depth %.4f" % (best["semseg"], best["depth"]))
    for epoch in range(start_epoch, p["epochs"]):
        for xb, yb in loader:
            loss = ((model(xb) - yb) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        save_model_predictions(p, x, model)
        results = score_all_results(p)
        print("epoch %d semseg %.4f depth %.4f" % (epoch, results["semseg"], results["depth"]))
        torch.save({"model": model.state_dict(), "epoch": epoch + 1, "best": best}, p["checkpoint"])
    print("weights %.4f" % sum(q.sum().item() for q in model.parameters()))


if __name__ == "__main__":
    main()
