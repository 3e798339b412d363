"""What DP041 reads in a forward(): transforms/analysis/partial_forward.py."""

from __future__ import annotations

import pytest

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


DROPS = """
import torch
import torch.nn as nn


class Pair(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 4)
        self.b = nn.Linear(4, 4)
        self.body = nn.Sequential(self.a)

    def forward(self, x):
        y = self.body(x)
        return y, self.b(x)


class KeepsFirst(nn.Module):
    def __init__(self):
        super().__init__()
        self.pair = Pair()

    def forward(self, x):
        out, unread = self.pair(x)
        return out


class ReadsBoth(nn.Module):
    def __init__(self):
        super().__init__()
        self.pairs = nn.ModuleList([Pair(), Pair()])

    def forward(self, x):
        total = 0
        for i, pair in enumerate(self.pairs):
            x, s = pair(x)
            total = total + s
        return total + x


class DropsLast(nn.Module):
    def __init__(self):
        super().__init__()
        self.pairs = nn.ModuleList([Pair(), Pair()])

    def forward(self, x):
        total = 0
        for i, pair in enumerate(self.pairs):
            x, s = pair(x)
            total = total + s
        return total
"""


def test_a_dropped_output_fed_by_its_own_layers_is_partial() -> None:
    """An unpacked name never read, and the last pass's residual of a loop, leave the layers
    that feed only that element without a gradient; a layer reached through a container
    (`self.body` holding `self.a`) feeds what the container does."""
    found = _partial(DROPS)
    assert set(found) == {"KeepsFirst", "DropsLast"}, found
    assert found["KeepsFirst"] == (
        "KeepsFirst.forward() drops element 1 of what self.pair returns (`out, unread = "
        "self.pair(x)`), which Pair.forward() alone feeds from self.b (line 24)"
    )
    assert "the last pass's element 0" in found["DropsLast"]
    assert "from self.a, self.body" in found["DropsLast"], found["DropsLast"]


def test_outputs_sharing_their_layers_or_not_literal_tuples_are_not_partial() -> None:
    source = """
import torch
import torch.nn as nn


class Shared(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(4, 4)
        self.o = nn.Linear(4, 4)

    def forward(self, x):
        w = torch.softmax(self.q(x), -1)
        out = self.o(w * x)
        return out, w


class Opaque(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(4, 4)
        self.o = nn.Linear(4, 4)

    def forward(self, x):
        result = (self.q(x), self.o(x))
        return result


class User(nn.Module):
    def __init__(self):
        super().__init__()
        self.shared = Shared()
        self.opaque = Opaque()
        self.rnn = nn.LSTM(4, 4)

    def forward(self, x):
        y, _ = self.shared(x)
        z = self.opaque(y)[0]
        out, (h, c) = self.rnn(z)
        return out
"""
    assert _partial(source) == {}


def test_outputs_unpacked_from_a_submodule_are_followed_element_by_element() -> None:
    """A forward() that returns what it unpacked from a submodule of the program's own
    (Transformer-TTS's Model over its decoder): each returned name is fed by that element of
    the submodule's outputs, so dropping the stop element starves `decoder.stop` alone;
    dropping an element fed by layers a kept one uses too starves nothing."""
    from dp2ddp.transforms.analysis.dropped_outputs import DroppedOutput, starved

    source = """
import torch.nn as nn


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.mel = nn.Linear(4, 4)
        self.stop = nn.Linear(4, 1)

    def forward(self, h):
        return self.mel(h), self.stop(h)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 4)
        self.decoder = Decoder()

    def forward(self, x):
        h = self.body(x)
        mel, stop = self.decoder.forward(h)
        return mel, stop, h
"""
    classes = module_classes("", "", source)
    outputs_of = {name: facts.outputs for name, facts in classes.items()}

    def drop(kept: tuple[int, ...]) -> str | None:
        dropped = DroppedOutput("", "model", ("Net",), kept, 3, 1, "", "call", False)
        return starved(dropped, outputs_of, classes)

    assert "from self.decoder.stop" in (drop((0, 2)) or "")
    assert drop((0, 1)) is None  # h: body feeds the kept mel too
    assert "from self.decoder.mel" in (drop((1, 2)) or "")


def test_a_layer_class_bound_by_a_star_import_is_the_project_s() -> None:
    """Transformer-TTS's network.py: `from module import *`, then `self.stop_linear =
    Linear(...)` of module.py: a layer of the program, so a dropped output it alone feeds
    is found (before: not registered, nothing reported). A forward() that also reads
    `self.parameters()` still tells what feeds its outputs."""
    layers = """
import torch.nn as nn


class Linear(nn.Module):
    def __init__(self, i, o):
        super().__init__()
        self.linear = nn.Linear(i, o)

    def forward(self, x):
        return self.linear(x)
"""
    network = """
from layers import *


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.mel = Linear(4, 4)
        self.stop_linear = Linear(4, 1)

    def forward(self, h):
        if next(self.parameters()).is_cuda:
            h = h.cuda()
        return self.mel(h), self.stop_linear(h)
"""
    classes = {**module_classes("layers", "layers.py", layers)}
    classes.update(module_classes("network", "network.py", network))
    assert classes["network.Decoder"].outputs == (
        (("mel", "layers.Linear"),),
        (("stop_linear", "layers.Linear"),),
    )


BACKBONE = """
import torch.nn as nn


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Linear(4, 8)
        self.pool = nn.ReLU()
        self.fc = nn.Linear(8, 10)

    def forward(self, x):
        return self.fc(self.pool(self.conv1(x)))

    def features(self, x):
        return self.pool(self.conv1(x))
"""


def test_a_backbone_taken_apart_leaves_its_own_head_unused() -> None:
    """Issue 28 class U1 (layumi/Person_reID_baseline_pytorch's ft_net): the backbone's
    layers called one by one, in forward() or a method it calls, its head never."""
    net = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = Backbone()
        self.classifier = nn.Linear(8, 2)

    def forward(self, x):
        return self.classifier(self.trunk(x))

    def trunk(self, x):
        x = self.model.conv1(x)
        return self.model.pool(x)
"""
    found = _partial(BACKBONE + net)
    assert found["Net"] == (
        "Net.forward() never uses self.model.fc: it calls self.model.conv1, self.model.pool "
        "one by one, never self.model whole (line 28)"
    ), found


def test_a_backbone_used_whole_or_through_its_methods_is_not_judged() -> None:
    for body in (
        "return self.classifier(self.model.pool(self.model.conv1(x)) + self.model(x)[:, :8])",
        "return self.classifier(self.model.features(x))",
        "x = self.model.pool(self.model.conv1(x))\n"
        "        return self.model.fc(x) + self.classifier(x).sum()",
    ):
        net = f"""
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = Backbone()
        self.classifier = nn.Linear(8, 2)

    def forward(self, x):
        {body}
"""
        assert "Net" not in _partial(BACKBONE + net), body


def test_parameters_frozen_in_a_train_override_are_partial() -> None:
    """Issue 28 class T1 (yjxiong/tsn-pytorch's partial BN): train() runs after the wrap."""
    source = """
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 8)
        self.norm = nn.BatchNorm1d(8)

    def train(self, mode=True):
        super().train(mode)
        self._freeze()
        return self

    def _freeze(self):
        for p in self.norm.parameters():
            p.requires_grad_(False)

    def forward(self, x):
        return self.norm(self.a(x))
"""
    assert _partial(source)["Net"] == (
        "Net.forward() runs without a gradient for p: _freeze() sets its requires_grad to "
        "False (line 18), after the wrap registered it (line 18)"
    )
    frozen_in_init = source.replace("        super().train(mode)\n        self._freeze()\n", "")
    assert "Net" not in _partial(frozen_in_init.replace("def _freeze(self)", "def freeze(self)"))


def test_a_torchvision_backbone_taken_apart_leaves_its_head_unused() -> None:
    """U1 as layumi/Person_reID_baseline_pytorch's ft_net writes it: a torchvision ResNet
    (through a local name) whose layers forward() calls one by one, its `fc` never."""
    source = """
import torch.nn as nn
from torchvision import models


class ft_net(nn.Module):
    def __init__(self, class_num):
        super().__init__()
        model_ft = models.resnet50(weights=None)
        self.model = model_ft
        self.classifier = nn.Linear(2048, class_num)

    def forward(self, x):
        x = self.model.conv1(x)
        x = self.model.layer4(x)
        x = self.model.avgpool(x)
        return self.classifier(x.view(x.size(0), -1))
"""
    assert _partial(source)["ft_net"] == (
        "ft_net.forward() never uses self.model.fc: it calls self.model.avgpool, "
        "self.model.conv1, self.model.layer4 one by one, never self.model whole (line 14)"
    )
    whole = source.replace("x = self.model.conv1(x)", "x = self.model(x) + self.model.conv1(x)")
    assert "ft_net" not in _partial(whole)
    head = source.replace("x = self.model.avgpool(x)", "x = self.model.fc(self.model.avgpool(x))")
    assert "ft_net" not in _partial(head)


def test_a_backbone_of_another_module_taken_apart_is_found_across_modules() -> None:
    net = """
import torch.nn as nn
from .backbone import Backbone


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = Backbone()
        self.classifier = nn.Linear(8, 2)

    def forward(self, x):
        return self.classifier(self.model.pool(self.model.conv1(x)))
"""
    classes = {
        **module_classes("models.backbone", "models/backbone.py", BACKBONE),
        **module_classes("models.net", "models/net.py", net),
    }
    found = partial_models(classes)
    assert set(found) == {"models.net.Net"}
    assert found["models.net.Net"].describe() == (
        "Net.forward() never uses self.model.fc: it calls self.model.conv1, self.model.pool "
        "one by one, never self.model whole (models/net.py:13)"
    )


@pytest.mark.parametrize(
    ("line", "found"),
    [
        ("every = torch.mm(x, x.t().data)", True),
        ("every = x.matmul(y.detach().T)", True),
        ("every = x @ y.transpose(0, 1)", True),
        ("every = torch.cdist(x, x)", True),
        ("every = x.mm(self.centers.t())", False),  # samples against class centres
        ("every = torch.bmm(x, y.transpose(1, 2))", False),  # per sample
        ("every = torch.mm(x, w)", False),
    ],
)
def test_forward_pairs_finds_a_comparison_of_rows(line: str, found: bool) -> None:
    """Stop 33 class P1: where a criterion class's forward() compares the batch's rows
    (ModelClass.pairs), whatever the class's name; an attribute operand is a table."""
    source = (
        "import torch\nimport torch.nn as nn\n\n\nclass Crit(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n\n"
        f"    def forward(self, x, y):\n        {line}\n        return every.sum()\n"
    )
    pairs = module_classes("", "crit.py", source)["Crit"].pairs
    assert (pairs == f"crit.py:10: {line.split(' = ')[1]}") if found else pairs == ""


@pytest.mark.parametrize(
    ("groups", "found"),
    [
        ("b * c", False),  # b = x.size(0): one group per row and channel
        ("x.size(0) * c", False),
        ("n * c", False),  # n, c, L = x.shape
        ("c", True),  # fewer groups than rows: a group spans rows
        ("b + c", True),  # not a multiple
        ("m * c", True),  # m is rebound: not proved the row count
    ],
)
def test_grouped_conv_one_group_per_row_couples_none(groups: str, found: bool) -> None:
    """Stop 72 (round 24, FaSNet-TAC FaSNet.py:317): the rows folded into the channels
    (`x.view(1, -1, L)`, a size-1 axis against the filters' `w.view(-1, 1, K)`) are kept
    apart by a group count proved a multiple of the rows; otherwise still a coupling."""
    source = (
        "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n\n"
        "class Net(nn.Module):\n"
        "    def forward(self, x, w):\n"
        "        b = x.size(0)\n"
        "        n, c, L = x.shape\n"
        "        m = b\n"
        "        m = 2\n"
        f"        y = F.conv1d(x.view(1, -1, L), w.view(-1, 1, 3), groups={groups})\n"
        "        return y.view(b, c, -1)\n"
    )
    pairs = module_classes("", "net.py", source)["Net"].pairs
    assert bool(pairs) == found, pairs
