import torch
import torch.nn as nn


class Head(nn.Module):
    def __init__(self, inplanes, classes):
        super().__init__()
        self.convs = nn.ModuleList()
        for k in (1, 3):
            self.convs.append(nn.Linear(inplanes, classes))

    def forward(self, x):
        out = self.convs[0](x)
        for conv in self.convs[1:]:
            out = out + conv(x)
        return out


class TwoHeaded(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.body = self._make_stage(8, 2)
        self.deep = nn.Linear(8, 8)
        self.aux_head = self._make_head(Head, 8, classes)
        self.main_head = self._make_head(Head, 8, classes)

    def _make_stage(self, width, blocks):
        layers = []
        for _ in range(blocks):
            layers.append(nn.Linear(width, width))
        return nn.Sequential(*layers)

    def _make_head(self, block, inplanes, classes):
        return block(inplanes, classes)

    def forward(self, x):
        h = torch.relu(self.body(x))
        x1 = self.aux_head(h)
        x2 = self.main_head(torch.relu(self.deep(h)))
        return x2, x1

    def groups(self, lr):
        return [{"params": self.parameters(), "lr": lr}]


def two_headed(classes=3):
    return TwoHeaded(classes)


def build(args):
    model = two_headed(classes=3)
    params = model.groups(args.lr)
    return model, params
