"""Sample grids a helper of another module returns as a PIL image, saved with the
image's own `.save(path)`: a file write (rank 0's), as `Image.fromarray(x).save(path)`."""

import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from imaging import stitch_images


def main():
    torch.manual_seed(0)
    data = TensorDataset(torch.rand(16, 8))
    loader = DataLoader(data, batch_size=4, shuffle=True)
    model = nn.DataParallel(nn.Sequential(nn.Linear(8, 8), nn.Sigmoid()))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    fixed = torch.rand(4, 8)
    os.makedirs("samples", exist_ok=True)
    for epoch in range(2):
        for (x,) in loader:
            loss = (model(x) - x).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            images = stitch_images(model(fixed))
        images.save(os.path.join("samples", "%03d.png" % epoch))


if __name__ == "__main__":
    main()
