"""Train the pose network (run from the project root: python tools/train.py)."""

import logging

import _init_paths  # noqa: F401
import torch
from _dp2ddp import DEVICE, DEVICE_IDS, ddp_is_main, ddp_per_rank_batch, ddp_setup
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

import dataset
import models
from config import cfg
from core.function import train, validate


def main():
    ddp_setup()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    torch.manual_seed(0)
    model = models.pose_net.get_pose_net(cfg)
    model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
    criterion = torch.nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.LR, momentum=0.9)
    train_dataset = dataset.KeypointSet(256, seed=0)
    train_loader = DataLoader(
        train_dataset,
        batch_size=ddp_per_rank_batch(cfg.BATCH_SIZE_PER_GPU * len(cfg.GPUS)),
        sampler=DistributedSampler(train_dataset, shuffle=True),
    )
    # dp2ddp: DP015 evaluation metrics not reduced
    valid_loader = DataLoader(dataset.KeypointSet(96, seed=1), batch_size=32)
    for epoch in range(cfg.EPOCHS):
        train_loader.sampler.set_epoch(epoch)
        train(cfg, train_loader, model, criterion, optimizer, epoch)
        loss = validate(valid_loader, model, criterion)
        logging.info("epoch %d: val loss %.4f", epoch, loss)
    if ddp_is_main():
        torch.save(model.module.state_dict(), "pose_net.pt")
        print(f"final val loss {loss:.4f}")


if __name__ == "__main__":
    main()
