"""A trainer reaching the model class through the package it imports: `gan.nets.GanModel`
after `import gan` (gan/__init__.py imports .nets), so the summaries of gan/nets.py are
told to this module through the import graph, not a direct import."""
import torch
from torch.utils.data import DataLoader, TensorDataset

import gan


def main():
    torch.manual_seed(0)
    loader = DataLoader(TensorDataset(torch.randn(16, 4)), batch_size=4)
    model = gan.nets.GanModel()
    for (x,) in loader:
        gen_loss, dis_loss = model.process(x)
        model.backward(gen_loss, dis_loss)


if __name__ == "__main__":
    main()
