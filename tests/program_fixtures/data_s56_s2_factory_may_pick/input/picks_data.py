"""A loader factory that returns the training loader or the evaluation loader by a test of
its first argument no constant decides (class r3-B of stop 55)."""
import torch


def fetch(types, batch_size):
    gen = torch.Generator().manual_seed(3)
    train = torch.utils.data.TensorDataset(
        torch.randn(16, 4, generator=gen), torch.randn(16, 1, generator=gen)
    )
    dev = torch.utils.data.TensorDataset(
        torch.randn(8, 4, generator=gen), torch.randn(8, 1, generator=gen)
    )
    trainloader = torch.utils.data.DataLoader(train, batch_size=batch_size, shuffle=True)
    devloader = torch.utils.data.DataLoader(dev, batch_size=batch_size, shuffle=False)
    if types.startswith("tr"):
        dl = trainloader
    else:
        dl = devloader
    return dl
