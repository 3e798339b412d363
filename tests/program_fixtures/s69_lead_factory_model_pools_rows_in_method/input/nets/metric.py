"""A metric-learning model built by a factory: its covariance block pools each class's
support rows in a method of its own, after moving them to dim 1 and folding them with the
positions."""

import torch
import torch.nn as nn


class CovarianceBlock(nn.Module):
    def covariances(self, supports):
        out = []
        for i in range(len(supports)):
            feats = supports[i]
            b, c, n = feats.size()
            feats = feats.permute(1, 0, 2).contiguous().view(c, -1)
            feats = feats - torch.mean(feats, 1, True)
            out.append(feats @ feats.t() / (b * n))
        return out

    def forward(self, query, supports):
        covs = self.covariances(supports)
        return torch.stack([(query @ cov * query).sum((1, 2)) for cov in covs], 1)


class MetricNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Conv1d(2, 3, 1)
        self.block = CovarianceBlock()

    def forward(self, query, supports):
        q = self.features(query).transpose(1, 2)
        return self.block(q, [self.features(s) for s in supports])


def define_net():
    return MetricNet()
