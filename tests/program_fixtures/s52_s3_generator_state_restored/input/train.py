import argparse
import os

import numpy as np
import torch

from common.generators import ChunkedGenerator

parser = argparse.ArgumentParser()
parser.add_argument("--resume", default="")
args = parser.parse_args()

torch.manual_seed(0)
poses = np.linspace(-1, 1, 64, dtype=np.float32).reshape(16, 4)
targets = poses.sum(1, keepdims=True) * 0.5
model = torch.nn.DataParallel(torch.nn.Linear(4, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
generator = ChunkedGenerator(4, poses, targets)
if args.resume:
    checkpoint = torch.load(args.resume, weights_only=False)
    model.load_state_dict(checkpoint["model"])
    generator.set_random_state(checkpoint["random_state"])
for epoch in range(2):
    for batch_x, batch_y in generator.next_epoch():
        x = torch.from_numpy(batch_x)
        y = torch.from_numpy(batch_y)
        loss = ((model(x) - y) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(epoch, round(loss.item(), 4))
os.makedirs("checkpoint", exist_ok=True)
torch.save(
    {"model": model.state_dict(), "random_state": generator.random_state()},
    os.path.join("checkpoint", "last.bin"),
)
