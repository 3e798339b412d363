import torch

standard_normal = torch.distributions.normal.Normal(0, 1)
