"""A trainer reaching the model class through the package it imports: `gan.nets.GanModel`
after `import gan` (gan/__init__.py imports .nets), so the summaries of gan/nets.py are
told to this module through the import graph, not a direct import."""
import torch
from torch.utils.data import DataLoader, TensorDataset

import gan
from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch, ddp_setup


def main():
    ddp_setup()
    torch.manual_seed(0)
    dataset = TensorDataset(torch.randn(16, 4))
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(4),
        sampler=DdpDistributedSampler(dataset, shuffle=False),
    )
    model = gan.nets.GanModel()
    for (x,) in loader:
        gen_loss, dis_loss = model.process(x)
        # dp2ddp: DP026 second backward through one DDP forward
        model.backward(gen_loss, dis_loss)


if __name__ == "__main__":
    main()
