"""DP223 (hazards/outside_trainers.py): a wrapped class dp2ddp cannot edit that trains
itself through `.module.<method>()` (round 23 P4, Andrewzh112/codebase's avae, with the
trainer class in an installed package instead of the program)."""

from __future__ import annotations

import pytest

from dp2ddp import migrate_source

PROGRAM = """\
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from trainkit import SelfTrainer


def main():
    inputs = torch.randn(32, 4)
    loader = DataLoader(TensorDataset(inputs, inputs.sum(1)), batch_size=8)
    trainer = SelfTrainer(4)
    trainer = nn.DataParallel(trainer)
    {call}


if __name__ == "__main__":
    main()
"""


def _codes(call: str) -> list[str]:
    result = migrate_source(PROGRAM.format(call=call))
    return [d.code for d in result.diagnostics if d.code == "DP223"]


def test_an_outside_trainer_trained_through_module_is_said() -> None:
    result = migrate_source(PROGRAM.format(call="trainer.module.fit(loader)"))
    said = [d for d in result.diagnostics if d.code == "DP223"]
    assert len(said) == 1, result.diagnostics
    assert "trainkit.SelfTrainer" in said[0].message
    assert "`trainer.module.fit(loader)`" in said[0].message


@pytest.mark.parametrize(
    "call",
    [
        # the wrapper's forward runs in the module: DDP averages what it computes
        "trainer(inputs)\n    trainer.module.fit(loader)",
        # nn.Module's own methods compute nothing of a step
        "trainer.module.state_dict()",
        "trainer.module.eval()",
        # a private helper of the class, not a training entry point
        "trainer.module._reset()",
    ],
)
def test_no_dp223_without_a_training_method_past_the_wrap(call: str) -> None:
    assert _codes(call) == []


def test_a_class_of_the_module_itself_is_not_said() -> None:
    """Defined here, the class is migrated (outside_parameters.py syncs its nets)."""
    source = PROGRAM.format(call="trainer.module.fit(loader)").replace(
        "from trainkit import SelfTrainer\n",
        "class SelfTrainer(nn.Module):\n"
        "    def __init__(self, n):\n"
        "        super().__init__()\n"
        "        self.net = nn.Linear(n, 1)\n"
        "        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)\n\n"
        "    def fit(self, loader):\n"
        "        for x, y in loader:\n"
        "            self.opt.zero_grad()\n"
        "            ((self.net(x).squeeze(1) - y) ** 2).mean().backward()\n"
        "            self.opt.step()\n",
    )
    result = migrate_source(source)
    assert "DP223" not in [d.code for d in result.diagnostics]
    assert "ddp_sync_module(self.net)" in result.code
