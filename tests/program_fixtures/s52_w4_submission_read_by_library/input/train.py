import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from submission import official_evaluate, rescore, write_submission


def main():
    torch.manual_seed(0)
    x = torch.randn(16, 3)
    y = x.sum(1, keepdim=True)
    loader = DataLoader(TensorDataset(x, y), batch_size=4, shuffle=False)
    model = nn.DataParallel(nn.Linear(3, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        for xb, yb in loader:
            loss = ((model(xb) - yb) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            rows = model(x).squeeze(1).tolist()
        submission_path = "submission_%d.txt" % epoch
        write_submission(rows, submission_path)
        total = official_evaluate(submission_path)
        best = rescore(rows, "scores_%d.txt" % epoch)
        print("epoch %d total %.4f best %.4f" % (epoch, total, best))
    print("weights %.4f" % sum(p.sum().item() for p in model.parameters()))


if __name__ == "__main__":
    main()
