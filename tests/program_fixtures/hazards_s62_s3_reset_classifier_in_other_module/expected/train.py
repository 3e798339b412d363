import torch
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_broadcast_module, ddp_print, ddp_setup
from models.maml import MAML


def main():
    ddp_setup()
    torch.manual_seed(0)
    model = DistributedDataParallel(MAML(4, 2).to(DEVICE), device_ids=DEVICE_IDS)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    data = torch.arange(32, dtype=torch.float32).view(8, 4) / 32
    labels = torch.tensor([0, 1, 0, 1, 1, 0, 1, 0])
    for step in range(2):
        model.module.reset_classifier()
        # dp2ddp: DP108 a training step runs the wrapped model through .module: past DDP
        loss = F.cross_entropy(model(data), labels) - 0.1 * model.module.confidence(data)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        ddp_print(f"step {step} loss {loss.item():.6f}")
    ddp_broadcast_module(model)


if __name__ == "__main__":
    main()
