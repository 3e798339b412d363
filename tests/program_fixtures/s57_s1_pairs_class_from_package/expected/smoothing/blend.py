import torch
import torch.nn as nn


class Blend(nn.Module):
    """Adds to each row the mean of its cosine neighbours in the batch."""

    def forward(self, x):
        sims = torch.cosine_similarity(x[:, None], x[None], dim=-1)
        return x + torch.mm(torch.softmax(sims, dim=1), x) / 2
