# Loaders built by module-level factories (class x1 of stop 54, the form of
# xyz961014/longterm@c62d11e's data module without its self-test): no loop of this module
# iterates either. train.py reaches the module through an alias (`corpus = dataloader`) and
# trains on what get_train_loader() returns: the base left it whole, with DP015 "evaluation
# metrics not reduced" of a training loader (false). The valid loader is evaluated there.
import torch
from torch.utils.data import DataLoader, TensorDataset

g = torch.Generator().manual_seed(0)
train_data = TensorDataset(torch.randn(32, 4, generator=g), torch.randn(32, 1, generator=g))
valid_data = TensorDataset(torch.randn(8, 4, generator=g), torch.randn(8, 1, generator=g))


def get_train_loader(batch_size=8):
    return DataLoader(train_data, batch_size, shuffle=False, drop_last=True)


def get_valid_loader(batch_size=4):
    return DataLoader(valid_data, batch_size, drop_last=True)
