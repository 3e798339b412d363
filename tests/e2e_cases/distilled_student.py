"""e2e case (fresh round stop 30, helper x; class K1, real-world: peterliht/
knowledge-distillation-pytorch@b1e4b6a): knowledge distillation where only the frozen teacher
is DataParallel and the student, the one model the optimizer trains, is a plain module built
by an `if`-expression (the teacher has no dropout or BatchNorm: no `.eval()`; the case
distilled_student_teacher_eval has one, before a loop that still trains). DataParallel
trained the student in one process on whole batches; migrated, ddp_sync_module(student)
starts it from rank 0's values and averages its gradients over the ranks. Before: DP069
alone, each rank trained its own student on its share and the ranks' students drifted apart
from step 1. The student's final weights are kept in E2E_DIGEST."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

E2E_DIGEST = []


def main(use_gpu=False):
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(32, 3), torch.randint(0, 2, (32,)))
    loader = DataLoader(data, batch_size=8)
    teacher = nn.DataParallel(nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2)))
    student = nn.Linear(3, 2).cuda() if use_gpu else nn.Linear(3, 2)
    optimizer = torch.optim.SGD(filter(lambda p: p.requires_grad, student.parameters()), lr=0.5)
    for _epoch in range(2):
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
