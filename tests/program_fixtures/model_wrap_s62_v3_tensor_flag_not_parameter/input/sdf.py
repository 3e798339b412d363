import torch
import torch.nn as nn


class SDFNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))

    def forward(self, points):
        return self.layers(points).squeeze(-1)

    def surface_points(self, n):
        points = torch.rand(n, 3) * 2 - 1
        points.requires_grad = True
        sdf = self(points)
        sdf.sum().backward()
        normals = points.grad / points.grad.norm(dim=1, keepdim=True)
        points.requires_grad = False
        points -= normals * sdf.unsqueeze(1)
        points = points[torch.isfinite(points).all(dim=1)]
        return points
