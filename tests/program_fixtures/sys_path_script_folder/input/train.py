"""The entry puts its helpers' folder on sys.path through sys.path[0], the folder of the script
Python runs (qiuqiangkong/audioset_tagging_cnn@d2f4b8c: `sys.path.insert(1,
os.path.join(sys.path[0], '../utils'))`). The helpers join the program: the folder is made
with exist_ok, the results file written and printed once."""
import os
import sys

sys.path.insert(1, os.path.join(sys.path[0], "utils"))
import torch  # noqa: E402
from helpers import append_result, create_folder  # noqa: E402
from torch import nn  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402

create_folder("out")
torch.manual_seed(0)
loader = DataLoader(TensorDataset(torch.randn(16, 4), torch.randn(16, 1)), batch_size=4)
model = nn.DataParallel(nn.Linear(4, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    append_result("out/results.txt", "epoch %d done" % epoch)
