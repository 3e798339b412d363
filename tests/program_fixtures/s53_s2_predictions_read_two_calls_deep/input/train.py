import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from evaluation import score_all_results
from predictions import save_model_predictions


def main():
    torch.manual_seed(0)
    p = {"save_dir": "results", "tasks": ["semseg", "depth"]}
    x = torch.randn(16, 3)
    y = x.sum(1, keepdim=True)
    loader = DataLoader(TensorDataset(x, y), batch_size=4, shuffle=False)
    model = nn.DataParallel(nn.Linear(3, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        for xb, yb in loader:
            loss = ((model(xb) - yb) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        save_model_predictions(p, x, model)
        results = score_all_results(p)
        print("epoch %d semseg %.4f depth %.4f" % (epoch, results["semseg"], results["depth"]))
    print("weights %.4f" % sum(q.sum().item() for q in model.parameters()))


if __name__ == "__main__":
    main()
