import torch
import torch.nn as nn

from labels import TagProcessor, tag_set

processor = TagProcessor()
label_list = processor.get_labels()
label2id = {l: i for i, l in enumerate(label_list)}
id2label = dict(enumerate(tag_set()))
cached = list(processor.cached_labels("labels.pkl"))
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
E2E_DIGEST = [sorted(label2id.items(), key=lambda kv: kv[1]), sorted(id2label.items())]
print("labels", len(label2id), "first", id2label[0] in label_list, "cached", len(cached))
