"""Stop 44, helper v1, class v1-C (zhunzhong07/ECN@5c5c177): the model is wrapped here and
handed to trainers.Trainer, which runs it twice before one backward (before: no warning,
both ranks failed at step 1, "Expected to mark a variable ready only once"); DP072 now."""
import torch
import torch.nn as nn

from trainers import Trainer


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(6, 4)
        self.classifier = nn.Linear(4, 3)

    def forward(self, x, output=None):
        f = self.body(x)
        if output == "feat":
            return f
        return self.classifier(f)


torch.manual_seed(0)
model = nn.DataParallel(Net())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
g = torch.Generator().manual_seed(1)
source = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(torch.randn(16, 6, generator=g), torch.randint(0, 3, (16,), generator=g)),
    batch_size=4,
)
target = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(16, 6, generator=g)), batch_size=4)
Trainer(model).train(source, target, opt)
print("weight", round(model.module.body.weight.sum().item(), 4))
