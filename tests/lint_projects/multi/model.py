"""The model, wrapped in DataParallel when there are several GPUs."""

import torch
import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


def build_model(device: torch.device) -> nn.Module:
    model = Classifier()
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    return model.to(device)
