"""Round 24 (lliuz/ARFlow@e92a8bb, transforms/co_transforms.py): a crop transform class draws
its corner with `random.randint`; another module appends it to a list handed to the program's
own `Compose`, and a Dataset runs that through `self.co_transform(...)` in `__getitem__`, in
the loader's two workers. The draws are one sample's, this rank's data: they stay each
process's own (before: `ddp_rank0_value(random.randint, ...)`, a store exchange per sample
from the workers: the migrated run hung at the first batch). The crop's target key "mask"
is also the key the Dataset keeps a path under, as ARFlow's "flow" was. The samples differ in
width: rank 0's corner for its own sample may not fit rank 1's, whose crop is then cut short."""
import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from aug.build import get_co_transforms
from data.frames import FramePairs

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "frames")

if __name__ == "__main__":
    torch.manual_seed(0)
    dataset = FramePairs(ROOT, 8, co_transform=get_co_transforms(4))
    loader = DataLoader(dataset, batch_size=4, num_workers=2)
    model = nn.DataParallel(nn.Linear(16, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.001)
    whole = True
    for epoch in range(2):
        for image, mask, shape in loader:
            whole = whole and bool((shape == 4).all())
            loss = (model(image).squeeze(1) - mask).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    print("crops whole", whole)
    print("weights %.4f" % sum(p.sum().item() for p in model.parameters()))
