import torch
import torch.nn as nn

import tags

label2id = {t: i for i, t in enumerate(tags.csv_tags(tags.ROWS))}
raw = list(tags.json_tags('["x", "y", "z"]'))
sizes = {n: i for i, n in enumerate(tags.class_ids(tags.ROWS))}
shapes = list(tags.pairs(tags.ROWS))
torch.manual_seed(0)
model = nn.DataParallel(nn.Linear(4, len(label2id)))
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
print("labels", len(label2id), "raw", len(raw), "sizes", len(sizes), "shapes", len(shapes))
