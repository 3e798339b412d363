import torch
import torch.nn as nn


class PointDistance(nn.Module):
    """A Chamfer distance: each point's nearest neighbour in the other cloud, summed over
    the points and over the batch's clouds. Holds no parameter."""

    def __init__(self):
        super().__init__()
        self.on_gpu = torch.cuda.is_available()

    def squared(self, x, y):
        xx = torch.bmm(x, x.transpose(2, 1)).diagonal(dim1=1, dim2=2)
        yy = torch.bmm(y, y.transpose(2, 1)).diagonal(dim1=1, dim2=2)
        zz = torch.bmm(x, y.transpose(2, 1))
        return xx.unsqueeze(2) + yy.unsqueeze(1) - 2 * zz

    def forward(self, clouds, rebuilt):
        dist = self.squared(clouds, rebuilt)
        near, _ = torch.min(dist, 1)
        far, _ = torch.min(dist, 2)
        return torch.sum(near) + torch.sum(far)


class MarginSum:
    """A plain callable: a hinge summed over the batch."""

    def __call__(self, scores, targets):
        return torch.sum(torch.relu(1.0 - scores * targets))
