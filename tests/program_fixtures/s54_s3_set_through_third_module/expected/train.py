import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

import deep
import mid
import utils
from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_rank0_order, ddp_setup

ddp_setup()


label_list = utils.get_labels()
label2id = {l: i for i, l in enumerate(ddp_rank0_order(label_list))}
id2label = dict(enumerate(ddp_rank0_order(utils.tag_set())))
order = [t for t in ddp_rank0_order(utils.Processor().get_labels())]
via_mid = list(ddp_rank0_order(mid.labels()))
far = list(deep.labels())
torch.manual_seed(0)
model = DistributedDataParallel(
    nn.Linear(4, len(label_list)).to(DEVICE), device_ids=DEVICE_IDS
)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
tags = ["B-ORG", "O", "B-MISC", "O", "B-PER", "I-PER", "B-LOC", "I-ORG", "I-MISC"]
x = torch.randn(len(tags), 4)
y = torch.tensor([label2id[t] for t in tags])
for step in range(3):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
E2E_DIGEST = [sorted(label2id.items(), key=lambda kv: kv[1]), sorted(id2label.items()), order,
              via_mid]
ddp_print("labels", len(label2id), "first", id2label[0] in label_list, "far", len(far))
