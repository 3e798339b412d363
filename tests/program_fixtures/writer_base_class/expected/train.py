import torch
from tensorboardX import SummaryWriter
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DdpDistributedSampler,
    DdpNullWriter,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)
from trainer import Trainer


def main():
    ddp_setup()
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(64, 4), torch.randn(64, 2))
    # dp2ddp: DP011, DP084
    loader = DataLoader(
        data,
        batch_size=ddp_per_rank_batch(8),
        sampler=DdpDistributedSampler(data, shuffle=True, advance_epoch=True),
    )
    trainer = Trainer(torch.nn.Linear(4, 2), loader, {"epochs": 2, "save_dir": "saved"})
    trainer.train()
    with (
        SummaryWriter if ddp_is_main() else DdpNullWriter
    )("saved/summary") as summary:
        if ddp_is_main():
            summary.add_text("status", "done")
    ddp_print("final weight sum", trainer.model.module.weight.sum().item())


if __name__ == "__main__":
    main()
