"""What DP041 reads in a forward(): transforms/analysis/partial_forward.py."""

from __future__ import annotations

from dp2ddp.transforms.analysis.partial_forward import module_classes, partial_models

LAYERS = """
import torch.nn as nn


class Residual(nn.Module):
    def __init__(self, inp, out):
        super().__init__()
        self.conv = nn.Conv2d(inp, out, 1)
        self.skip_layer = nn.Conv2d(inp, out, 1)
        self.need_skip = inp != out

    def forward(self, x):
        residual = x
        if self.need_skip:
            residual = self.skip_layer(x)
        return self.conv(x) + residual
"""

NET = """
import torch.nn as nn
from .layers import Residual


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.Sequential(Residual(3, 3), Residual(3, 8))

    def forward(self, x):
        return self.blocks(x)
"""


def _partial(source: str) -> dict[str, str]:
    return {k: v.describe() for k, v in partial_models(module_classes("", "", source)).items()}


def test_a_layer_used_on_one_branch_is_found_across_modules() -> None:
    classes = {
        **module_classes("models.layers", "models/layers.py", LAYERS),
        **module_classes("models.net", "models/net.py", NET),
    }
    found = partial_models(classes)
    assert set(found) == {"models.layers.Residual", "models.net.Net"}
    assert found["models.net.Net"].describe() == (
        "Residual.forward() uses self.skip_layer only when `self.need_skip` (models/layers.py:14)"
    )


def test_layers_all_used_or_reached_by_name_are_not_partial() -> None:
    source = """
import torch.nn as nn


class ByName(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer1 = nn.Linear(2, 2)
        self.layer2 = nn.Linear(2, 2)

    def forward(self, x):
        for i in (1, 2):
            x = getattr(self, f"layer{i}")(x)
        return x


class Helper(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(2, 2)
        self.b = nn.Linear(2, 2)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        return self._body(self.a(x))

    def _body(self, x):
        return self.b(x)


class Checked(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)

    def forward(self, x):
        if x.dim() != 2:
            raise ValueError("x must be (B, F)")
        return self.fc(x)


class FlagBuilt(nn.Module):
    def __init__(self, norm):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        if norm:
            self.norm = nn.LayerNorm(2)
        self.use_norm = norm

    def forward(self, x):
        x = self.fc(x)
        if self.use_norm:
            x = self.norm(x)
        return x
"""
    assert _partial(source) == {}


def test_never_used_and_ternary_arms_are_partial() -> None:
    source = """
import torch.nn as nn


class Unused(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.head = nn.Linear(2, 3)

    def forward(self, x):
        return self.fc(x)


class Ternary(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.proj = nn.Linear(2, 2)

    def forward(self, x, project=False):
        return self.proj(x) if project else self.fc(x)
"""
    found = _partial(source)
    assert found["Unused"].startswith("Unused.forward() never uses self.head")
    assert found["Ternary"].startswith("Ternary.forward() uses self.fc only when not `project`")


def test_layers_held_by_containers_are_used_as_their_holders_are() -> None:
    """A layer handed to what __init__ keeps (nn.Sequential of attributes, a list filled in
    a loop, ModuleDict, append, another module) is used where its holder is: never claimed
    unused; a holder used on one branch makes the layer partial, named through it."""
    source = """
import torch.nn as nn


class Held(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3)
        self.bn1 = nn.BatchNorm2d(8)
        self.a = nn.Linear(2, 2)
        self.b = nn.Linear(2, 2)
        self.c = nn.Linear(2, 2)
        self.features = nn.Sequential(self.conv1, self.bn1)
        nn.init.zeros_(self.conv1.weight)
        layers = []
        for layer in (self.a,):
            layers.append(layer)
        self.body = nn.ModuleList(layers)
        self.heads = nn.ModuleDict({"b": self.b})
        self.tied = Tied(self.c)

    def forward(self, x):
        return self.features(x), self.body[0](x), self.heads["b"](x), self.tied(x)


class Handed(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        register(self.fc)

    def forward(self, x):
        return x


class Branch(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(2, 2)
        self.seq = nn.Sequential(self.proj)
        self.fc = nn.Linear(2, 2)

    def forward(self, x, flag=False):
        if flag:
            x = self.seq(x)
        return self.fc(x)


class Left(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(2, 2)
        self.seq = nn.Sequential(self.proj)
        self.fc = nn.Linear(2, 2)

    def forward(self, x):
        return self.fc(x)
"""
    found = _partial(source)
    assert set(found) == {"Branch", "Left"}, found
    assert found["Branch"].startswith(
        "Branch.forward() uses self.proj (in self.seq) only when `flag`"
    )
    assert found["Left"].startswith("Left.forward() never uses self.seq")
