"""A backbone from a table of constructors, walked child by child until `pool` (Cysu/
open-reid's ResNet over torchvision's): its `fc` never gets a gradient. The model is built
by a factory of the package, so its class is not known where it is wrapped."""
from torch import nn


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, 10)

    def forward(self, x):
        return self.fc(self.pool(self.conv(x)).flatten(1))


class Embed(nn.Module):
    __backbones = {18: Tiny, 34: Tiny}

    def __init__(self, depth=18, features=4):
        super().__init__()
        self.base = Embed.__backbones[depth]()
        if features > 0:
            self.feat = nn.Linear(8, features)

    def forward(self, x):
        for name, module in self.base._modules.items():
            if name == "pool":
                break
            x = module(x)
        return self.feat(x.mean((2, 3)))
