"""A model fed a dict of feature columns, one value per sample each, the first alike for
all samples (datawhalechina/torch-rechub@5a73b2e: DeepFM fed `{name: tensor(B)}`, a sparse
id 0 for most samples). Its migration is right; verify hashed the first column alone,
found every rank's samples "the same" and named a missing DistributedSampler. A sample is
its row across the dict's columns, as DataParallel's scatter cuts them. The model is also
traced once before training, as a TensorBoard graph is (bubbliiiing/yolov4-tiny-pytorch@
1f2a5b9's `add_graph(model, torch.randn(2, ...))`): a traced forward is no training forward."""

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)


class Columns(Dataset):
    def __init__(self):
        self.x = {"sparse": torch.zeros(32, dtype=torch.long), "dense": torch.randn(32)}
        self.y = torch.randn(32)

    def __len__(self):
        return 32

    def __getitem__(self, i):
        return {k: v[i] for k, v in self.x.items()}, self.y[i]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(2, 3)
        self.fc = nn.Linear(3, 1)

    def forward(self, x):
        return self.fc(self.emb(x["sparse"]) + x["dense"][:, None]).squeeze(1)


net = Net()
torch.jit.trace(net, ({"sparse": torch.zeros(2, dtype=torch.long), "dense": torch.randn(2)},),
                strict=False)  # fmt: skip
loader = DataLoader(Columns(), batch_size=8, shuffle=True)
model = nn.DataParallel(net)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _epoch in range(2):
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
