# One helper builds the training and the inference model, and wraps only the training one
# (NVIDIA/pix2pixHD@14b3b3c models/models.py create_model).
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 8))

    def forward(self, x):
        return self.net(x)


class InferenceModel(Generator):
    def inference(self, x):
        with torch.no_grad():
            return self.forward(x)


def create_model(opt):
    model = Generator() if opt.isTrain else InferenceModel()
    # dp2ddp: DP012 DataParallel wrap kept under a condition
    if opt.isTrain and not opt.fp16:
        model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
    return model
