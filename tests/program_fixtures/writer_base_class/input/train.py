import torch
from tensorboardX import SummaryWriter
from torch.utils.data import DataLoader, TensorDataset

from trainer import Trainer


def main():
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(64, 4), torch.randn(64, 2))
    loader = DataLoader(data, batch_size=8, shuffle=True)
    trainer = Trainer(torch.nn.Linear(4, 2), loader, {"epochs": 2, "save_dir": "saved"})
    trainer.train()
    with SummaryWriter("saved/summary") as summary:
        summary.add_text("status", "done")
    print("final weight sum", trainer.model.module.weight.sum().item())


if __name__ == "__main__":
    main()
