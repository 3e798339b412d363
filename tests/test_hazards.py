"""FlagHazards beyond the golden fixtures."""

from __future__ import annotations

import pytest

from dp2ddp import migrate_source

SUMMED_LOSS = """\
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.DataParallel(nn.Linear(4, 1))
x, y = torch.zeros(8, 4), torch.zeros(8, 1)
{block}
"""


@pytest.mark.parametrize(
    "context",
    [
        "torch.no_grad()",
        "torch.inference_mode()",
        "torch.autograd.no_grad()",
        "torch.autograd.inference_mode()",  # was missing from FlagHazards' own no_grad set
        "torch.autograd.grad_mode.no_grad()",
        "torch.autograd.grad_mode.inference_mode()",
    ],
)
def test_summed_loss_without_gradients_is_not_flagged(context: str) -> None:
    """A loss summed where gradients are off cannot reach backward(): no DP004. The same
    loss outside the `with` is flagged, so the check itself is live."""
    line = 'loss = F.mse_loss(model(x), y, reduction="sum")'
    flagged = migrate_source(SUMMED_LOSS.format(block=line))
    assert [d.code for d in flagged.diagnostics] == ["DP004"]
    quiet = migrate_source(SUMMED_LOSS.format(block=f"with {context}:\n    {line}"))
    assert [d.code for d in quiet.diagnostics] == []


DRAWING_HELPER = """\
import numpy as np
import torch
import torch.nn as nn


def jitter(x):
    return x + torch.randn_like(x)


def ping(n):
    return pong(n - 1) if n else 0


def pong(n):
    return ping(n)


def outer():
    def jitter(x):
        return x
    return jitter


model = nn.DataParallel(nn.Linear(4, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = jitter(torch.zeros(8, 4))
for step in range(3):
    {call}
    loss = model(x).mean()
    loss.backward()
    optimizer.step()
"""


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        ("x = jitter(x)", ["jitter() draws torch.randn_like at line 7"]),
        ("ping(3)", []),  # mutual recursion that never draws
        ("x = outer()(x)", []),
        ("helper = jitter", []),  # named, not called
    ],
)
def test_helpers_called_in_the_loop_are_followed(call: str, expected: list[str]) -> None:
    """DP006 at the call of a module function that draws; nothing for one that does not, or
    for a name that is not the module's function. The draw at module level (x =
    jitter(...) before the loop) is outside any loop: no warning."""
    result = migrate_source(DRAWING_HELPER.format(call=call))
    found = [d.message.partition(": ")[2] for d in result.diagnostics if d.code == "DP006"]
    assert found == expected


def test_a_parameter_named_like_a_drawing_helper_is_not_it() -> None:
    source = DRAWING_HELPER.format(call="pass") + (
        "\n\ndef train(jitter, x):\n"
        "    for step in range(3):\n"
        "        loss = model(jitter(x)).mean()\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
    )
    assert [d.code for d in migrate_source(source).diagnostics if d.code == "DP006"] == []
    drawing = source.replace("def train(jitter, x)", "def train(x)")
    assert [d.code for d in migrate_source(drawing).diagnostics if d.code == "DP006"] == ["DP006"]


def test_a_helper_with_its_own_training_loop_is_warned_inside_only() -> None:
    """`for epoch ...: train_epoch()` with the draws in train_epoch()'s own training loop:
    DP006 at the draw, not again at the call (also when the outer loop steps too)."""
    source = (
        "import torch\nimport torch.nn as nn\n\n"
        "model = nn.DataParallel(nn.Linear(4, 1))\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n\n\n"
        "def train_epoch():\n"
        "    for i in range(2):\n"
        "        model(torch.rand(8, 4)).mean().backward()\n"
        "        optimizer.step()\n\n\n"
        "for epoch in range(3):\n"
        "    train_epoch()\n"
        "    optimizer.step()\n"
    )
    found = [(d.line, d.message) for d in migrate_source(source).diagnostics if d.code == "DP006"]
    assert [(line, message.partition(": ")[2]) for line, message in found] == [(10, "torch.rand()")]


def test_second_backward_through_a_deep_call_chain_is_found_without_recursion() -> None:
    """DP026's function summaries are read callees first: a chain of calls longer than
    Python's recursion allows nested (1200 functions, the last one the forward) neither
    fails nor hides the second backward through the one forward the chain returns."""
    lines = ["import torch", "import torch.nn as nn", "net = nn.DataParallel(nn.Linear(4, 1))"]
    for i in range(1200):
        lines += [
            f"def f{i}(x):",
            f"    return f{i + 1}(x) * 2" if i < 1199 else "    return net(x)",
        ]
    lines += ["y = f0(torch.zeros(8, 4)).sum()", "y.backward(retain_graph=True)", "y.backward()"]
    result = migrate_source("\n".join(lines) + "\n")
    found = [d for d in result.diagnostics if d.code == "DP026"]
    assert [d.line for d in found] == [len(lines)], result.diagnostics


UNREAD_CLASS = """\
import torch
import torch.nn as nn
from lossy_lib import DistillLoss

model = nn.DataParallel(DistillLoss())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.zeros(8, 4), torch.zeros(8, 1)
{block}
opt.step()
"""


@pytest.mark.parametrize(
    ("block", "scaled"),
    [
        ("loss = model(x, y)[:, 0].sum()\nloss.backward()", True),
        ("loss = model(x, y).sum() + x.mean()\nloss.backward()", False),
    ],
)
def test_sum_of_an_unread_class_output_is_said(block: str, scaled: bool) -> None:
    """Issue 28 (stop 70, across): the wrapped model's class is not read (a library's, or
    a module outside the migrated file): whether its replicas return per-row values or a
    mean over their rows is not known, so the sum of what DataParallel gathered is DP221,
    scaled as a sum over the batch or left as it is beside other terms, never silently."""
    result = migrate_source(UNREAD_CLASS.format(block=block))
    codes = [d.code for d in result.diagnostics]
    assert codes.count("DP221") == 1, codes
    assert "DP004" not in codes, codes
    said = next(d for d in result.diagnostics if d.code == "DP221")
    assert "`DistillLoss(...)`" in said.message
    assert ("* WORLD_SIZE).backward()" in result.code) is scaled


def test_sum_of_a_read_class_output_per_row_is_not_said() -> None:
    """A wrapped class of the module whose forward() returns per-row values: the sum is
    over the batch, scaled, nothing said (DP221 is only for a class not read)."""
    source = UNREAD_CLASS.replace(
        "from lossy_lib import DistillLoss\n",
        "\n\nclass DistillLoss(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.fc = nn.Linear(4, 1)\n\n    def forward(self, x, y):\n"
        "        return (self.fc(x) - y).pow(2)\n\n\n",
    ).format(block="loss = model(x, y)[:, 0].sum()\nloss.backward()")
    result = migrate_source(source)
    assert [d.code for d in result.diagnostics] == []
    assert "(loss * WORLD_SIZE).backward()" in result.code
