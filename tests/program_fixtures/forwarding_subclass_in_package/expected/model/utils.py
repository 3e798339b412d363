import torch
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import ddp_is_main


class DataParallel(DistributedDataParallel):
    """Passes its arguments on; reads the wrapped module's attributes through."""

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self.module, name)


class Gathering(torch.nn.DataParallel):
    """Does more than forward: its gather is its own (DP002, port it by hand)."""

    def gather(self, outputs, output_device):
        return super().gather(outputs, output_device)


def save_model(model, path):
    if isinstance(model, DistributedDataParallel):
        model = model.module
    if ddp_is_main():
        torch.save(model.state_dict(), path)
