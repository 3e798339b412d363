# One helper builds the training and the inference model, and wraps only the training one
# (NVIDIA/pix2pixHD@14b3b3c models/models.py create_model).
import torch
import torch.nn as nn


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
    if opt.isTrain and len(opt.gpu_ids) and not opt.fp16:
        model = torch.nn.DataParallel(model, device_ids=opt.gpu_ids)
    return model
