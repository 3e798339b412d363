"""Fresh round stop 31, class 31f2 (clovaai/overhaul-distillation@76344a8): a distiller
module handed its teacher and student (`self.teacher = teacher`, classes not known to the
distiller), the teacher reached through a method of it and read only as `.detach()`, its
other output never read. DataParallel did not mind that the teacher got no gradient; DDP
failed at step 2 ("Expected to have finished reduction in the prior iteration"), with no
warning. Now DP041 and find_unused_parameters=True: to the end, the original's weights."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 4)
        self.head = nn.Linear(4, 3)

    def features(self, x):
        f = self.body(x)
        return [f], self.head(torch.relu(f))


class Distiller(nn.Module):
    def __init__(self, teacher, student):
        super().__init__()
        self.teacher = teacher
        self.student = student

    def forward(self, x):
        t_feats, t_out = self.teacher.features(x)
        s_feats, s_out = self.student.features(x)
        return s_out, (s_feats[0] - t_feats[0].detach()).pow(2).sum()


torch.manual_seed(0)
data = TensorDataset(torch.randn(32, 4), torch.randint(0, 3, (32,)))
loader = DataLoader(data, batch_size=8, shuffle=False)
teacher, student = Net(), Net()
model = nn.DataParallel(Distiller(teacher, student))
optimizer = torch.optim.SGD(student.parameters(), lr=0.1)
for _epoch in range(2):
    for x, y in loader:
        out, distill = model(x)
        loss = nn.functional.cross_entropy(out, y) + distill.sum() / x.shape[0]
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in model.module.parameters()]
print("final", E2E_DIGEST)
