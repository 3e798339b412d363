import torch


class DataParallel(torch.nn.DataParallel):
    """Passes its arguments on; reads the wrapped module's attributes through."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super(DataParallel, self).__init__(module, device_ids, output_device, dim)

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
    if isinstance(model, torch.nn.DataParallel):
        model = model.module
    torch.save(model.state_dict(), path)
