"""e2e case (docs/real-world.md stop 30, helper x's note; real-world: peterliht/
knowledge-distillation-pytorch@b1e4b6a's train_kd): knowledge distillation whose frozen,
wrapped teacher is switched to eval mode before the loop that trains the plain student. The
loop backpropagates, so it trains whatever mode the teacher is in: the loader is sharded and
each rank trains on its share of every batch, the student's gradients averaged over the
ranks (ddp_sync_module). Before: `.eval()` made the loop read as an evaluation, the loader
was left whole (DP015) and every rank trained on the whole batch. The student's final
weights are kept in E2E_DIGEST: the original's."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

E2E_DIGEST = []


def main():
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(32, 3), torch.randint(0, 2, (32,)))
    loader = DataLoader(data, batch_size=8)
    teacher = nn.DataParallel(
        nn.Sequential(nn.Linear(3, 4), nn.Dropout(0.5), nn.Tanh(), nn.Linear(4, 2))
    )
    student = nn.Linear(3, 2)
    optimizer = torch.optim.SGD(student.parameters(), lr=0.5)
    for _epoch in range(2):
        student.train()
        teacher.eval()
        for x, y in loader:
            with torch.no_grad():
                target = teacher(x)
            out = student(x)
            loss = nn.functional.kl_div(
                out.log_softmax(1), target.softmax(1), reduction="batchmean"
            ) + nn.functional.cross_entropy(out, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    E2E_DIGEST.extend(v for p in student.parameters() for v in p.flatten().tolist())


if __name__ == "__main__":
    main()
