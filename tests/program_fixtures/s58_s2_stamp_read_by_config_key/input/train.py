"""The run folder is named by the config's stamp, read by key: the checkpoint saved there,
then loaded back on every rank."""
import os

import torch
from torch.utils.data import DataLoader, TensorDataset

from settings import RunConfig


def train(config):
    run_name = config["run_name"]
    folder = os.path.join("runs", run_name)
    os.makedirs(folder, exist_ok=True)
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(32, 4), torch.randn(32, 1))
    loader = DataLoader(data, batch_size=config["batch"], shuffle=False)
    model = torch.nn.DataParallel(torch.nn.Linear(4, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(config["epochs"]):
        for x, y in loader:
            loss = ((model(x) - y) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        torch.save(model.state_dict(), os.path.join(folder, "last.pth"))
    state = torch.load(os.path.join(folder, "last.pth"))
    print("folders %d weights %.4f" % (len(os.listdir("runs")), state["module.weight"].sum()))


if __name__ == "__main__":
    config = RunConfig()
    config.finish()
    train(config)
