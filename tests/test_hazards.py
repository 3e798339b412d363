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
