import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from scores import save_scores, validate_results


def main():
    torch.manual_seed(0)
    p = {"save_dir": "results", "tasks": ["a", "b"]}
    x = torch.randn(16, 3)
    y = torch.cat([x.sum(1, keepdim=True), x.mean(1, keepdim=True)], 1)
    loader = DataLoader(TensorDataset(x, y), batch_size=4, shuffle=False)
    model = nn.DataParallel(nn.Linear(3, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    best = {}
    for epoch in range(3):
        for xb, yb in loader:
            loss = ((model(xb) - yb) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            errors = ((model(x) - y) ** 2).mean(0)
        scores = {"a": errors[0].item(), "b": errors[1].item()}
        if scores["a"] < 10:
            save_scores(p, scores)
            improves, best = validate_results(p, scores, best)
            print("epoch %d a %.4f b %.4f improves %s" % (epoch, scores["a"], scores["b"], improves))
    print("weights %.4f" % sum(q.sum().item() for q in model.parameters()))


if __name__ == "__main__":
    main()
