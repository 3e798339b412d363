import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset

from parse_config import ConfigParser, scratch_dir


def main(config):
    data = TensorDataset(torch.randn(64, 8), torch.randint(0, 3, (64,)))
    loader = DataLoader(data, batch_size=8, shuffle=True)
    model = torch.nn.DataParallel(torch.nn.Linear(8, 3))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(config["epochs"]):
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        torch.save(model.state_dict(), config.save_dir / f"checkpoint-epoch{epoch}.pth")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--save_dir", default="saved")
    args = parser.parse_args()
    config = ConfigParser({"save_dir": args.save_dir, "epochs": 2})
    scratch_dir(args.save_dir, keep=False)
    main(config)
