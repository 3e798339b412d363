import torch
import torch.nn as nn

import deep
import mid
import utils

label_list = utils.get_labels()
label2id = {l: i for i, l in enumerate(label_list)}
id2label = dict(enumerate(utils.tag_set()))
order = [t for t in utils.Processor().get_labels()]
via_mid = list(mid.labels())
far = list(deep.labels())
torch.manual_seed(0)
model = nn.DataParallel(nn.Linear(4, len(label_list)))
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
print("labels", len(label2id), "first", id2label[0] in label_list, "far", len(far))
