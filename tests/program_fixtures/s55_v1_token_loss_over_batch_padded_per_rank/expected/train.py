import torch
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)
from data import Sentences, pad_pairs


class Tagger(torch.nn.Module):
    """Scores each position alone: no position sees another, so only the loss's count
    differs between a whole batch and a rank's share."""

    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(12, 8)
        self.out = torch.nn.Linear(8, 7)

    def forward(self, tokens):
        return self.out(self.embed(tokens))


class Trainer:
    def __init__(self):
        self.model = DistributedDataParallel(Tagger().to(DEVICE), device_ids=DEVICE_IDS)
        self.loss_fn = torch.nn.CrossEntropyLoss()
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.5)

    def train_epoch(self, dataset):
        loader = torch.utils.data.DataLoader(
            dataset,
            batch_size=ddp_per_rank_batch(4),
            sampler=DdpDistributedSampler(
                dataset, shuffle=True, advance_epoch=True, rebuilt="train.py:26"
            ),
            collate_fn=pad_pairs,
        )
        for sources, targets in loader:
            logits = self.model(sources)
            loss = self.loss_fn(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
        return loss.item()


def main():
    ddp_setup()
    torch.manual_seed(0)
    trainer = Trainer()
    dataset = Sentences(16)
    # dp2ddp: DP011 no epoch loop found for sampler.set_epoch
    for epoch in range(2):
        ddp_print(epoch, trainer.train_epoch(dataset))


if __name__ == "__main__":
    main()
