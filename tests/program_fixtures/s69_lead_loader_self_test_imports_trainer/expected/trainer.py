import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup


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
    # dp2ddp: DP030 running figure printed from this rank's shard
    return hits / seen


def main():
    ddp_setup()
    import feeds

    torch.manual_seed(0)
    model = DistributedDataParallel(
        nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3)).to(DEVICE),
        device_ids=DEVICE_IDS,
    )
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    train_loader, _ = feeds.get(8, options()["seed"])
    # dp2ddp: DP015 evaluation metrics not reduced
    val_loader, _ = feeds.get(4, 2, ddp_shard=False)
    for epoch in range(2):
        train_loader.sampler.set_epoch(epoch)
        run(model, train_loader, opt)
        ddp_print("epoch", epoch, "val acc", run(model, val_loader))
    ddp_print("weights %.6f" % sum(p.sum().item() for p in model.parameters()))


if __name__ == "__main__":
    main()
