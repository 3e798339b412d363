"""The library's example with the documented multi-GPU use: `device='cuda:0'` when CUDA is
there (a string, as the library's check needs), `gpus=[0, 1]`."""
import torch
from _dp2ddp import DEVICE, ddp_print, ddp_setup

from ctrlib import TinyCTR

ddp_setup()


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.rand(64, 8)
    y = (x.sum(1) > 4).float()
    device = "cpu"
    use_cuda = True
    if use_cuda and torch.cuda.is_available():
        ddp_print("cuda ready...")
        device = str(DEVICE)
    model = TinyCTR(8, device=device, gpus=[0, 1])
    model.fit(x, y, batch_size=8, epochs=2)
