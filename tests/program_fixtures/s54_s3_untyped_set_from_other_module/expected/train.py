import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

import tags
from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_rank0_order, ddp_setup

ddp_setup()


label2id = {t: i for i, t in enumerate(ddp_rank0_order(tags.csv_tags(tags.ROWS)))}
raw = list(tags.json_tags('["x", "y", "z"]'))
sizes = {n: i for i, n in enumerate(tags.class_ids(tags.ROWS))}
shapes = list(tags.pairs(tags.ROWS))
torch.manual_seed(0)
model = DistributedDataParallel(
    nn.Linear(4, len(label2id)).to(DEVICE), device_ids=DEVICE_IDS
)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
names = ["B-ORG", "O", "B-MISC", "O", "B-PER", "I-PER", "B-LOC", "I-ORG", "I-MISC"]
x = torch.randn(len(names), 4)
y = torch.tensor([label2id[t] for t in names])
for step in range(3):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
E2E_DIGEST = [sorted(label2id.items(), key=lambda kv: kv[1]), sizes, shapes]
ddp_print(
    "labels", len(label2id), "raw", len(raw), "sizes", len(sizes), "shapes", len(shapes)
)
