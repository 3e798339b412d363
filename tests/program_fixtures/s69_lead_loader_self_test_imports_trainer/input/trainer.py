import torch
import torch.nn as nn


def options():
    return {"seed": 1}


def run(model, loader, optimizer=None):
    training = optimizer is not None
    model.train(training)
    hits = seen = 0
    for x, y in loader:
        out = model(x)
        if training:
            loss = nn.functional.cross_entropy(out, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        hits += (out.argmax(1) == y).sum().item()
        seen += len(y)
    return hits / seen


def main():
    import feeds

    torch.manual_seed(0)
    model = nn.DataParallel(nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3)))
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    train_loader, _ = feeds.get(8, options()["seed"])
    val_loader, _ = feeds.get(4, 2)
    for epoch in range(2):
        run(model, train_loader, opt)
        print("epoch", epoch, "val acc", run(model, val_loader))
    print("weights %.6f" % sum(p.sum().item() for p in model.parameters()))


if __name__ == "__main__":
    main()
