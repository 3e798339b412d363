import torch
import torch.nn as nn


def parallel(model):
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    return model.cuda()
