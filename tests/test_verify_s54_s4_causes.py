"""verify names the migration's own warning where it explains the difference, before the
generic causes (stop 54, helper s4; docs/real-world.md, "Stop 54 — true texts and causes"):
manjotms10/PatchGAN@83de605 had "random numbers drawn inside the training loop" first where
the batch's draw was made rank 0's and DP059 (a loss squaring the batch's mean) said why."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch
from test_verify_units import _pair, _record

from dp2ddp.verify import scan
from dp2ddp.verify.causes import Evidence, diagnose
from dp2ddp.verify.compare import compare_updates
from dp2ddp.verify.config import VerifyConfig
from dp2ddp.verify.session import verify
from dp2ddp.verify.sharding import check_sharding

_DP059 = (
    "./train.py:8:58: DP059 the loss uses a statistic over the batch: torch.mean(d) feeds a "
    "non-linear loss: 0.5 * torch.mean(d) * torch.mean(d) multiplies statistics over the whole "
    "batch; each rank multiplies its own part's and DDP averages the ranks' gradients, "
    "DataParallel multiplied the whole batch's"
)
_DP006 = "./train.py:18:13: DP006 random tensors drawn inside the training loop: torch.randint()"

#: PatchGAN's shape: a batch drawn by index each step (the migration draws it alike on every
#: rank and shards it), a loss module squaring the batch's mean.
PROGRAM = """\
import torch
import torch.nn as nn


class ScaleInvariantError(nn.Module):
    def forward(self, y_true, y_pred):
        d = torch.log(torch.clamp(y_pred, 0.0001)) - torch.log(torch.clamp(y_true, 0.0001))
        return torch.mean(d * d) - 0.5 * torch.mean(d) * torch.mean(d)


torch.manual_seed(0)
x = torch.rand(16, 4)
y = torch.rand(16, 1) + 0.5
model = nn.DataParallel(nn.Sequential(nn.Linear(4, 1), nn.Softplus()))
criterion = ScaleInvariantError()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
for step in range(8):
    index = torch.randint(0, 16, (4,))
    xb, yb = x[index], y[index]
    loss = criterion(model(xb), yb)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("weights %.4f" % sum(p.sum().item() for p in model.parameters()))
"""


def _evidence(tmp_path: Path, **changes: Any) -> Evidence:
    """One step: the ranks fed the original's batch split (a+b), the global RNG advanced in
    the loop, and the updates differ unevenly (no constant ratio: not a rescaled loss)."""
    u = torch.tensor([1e-3, -2e-3, 5e-4, 1e-3])
    original, migrated = _pair(tmp_path, [u], [u * torch.tensor([1.3, 0.7, 1.1, 0.9])])
    ranks = [migrated, _record(1, inputs=[["b"]])]
    for run in ranks:
        run.data["wrappers"] = [{"class": "DistributedDataParallel", "devices": 0, "dim": 0}]
    for run, rows in zip([original, *ranks], (["a", "b"], ["a"], ["b"]), strict=True):
        run.data["windows"][0].update(inputs={"0": rows}, rng_consumed=True)
    return Evidence(
        world=2,
        numerics=compare_updates(original, migrated, 1e-4, 1e-8),
        sharding=check_sharding(original, ranks, 1),
        in_sync=True,
        sync_detail="",
        original=original,
        migrated=ranks,
        findings_original=scan.scan(""),
        findings_migrated=[],
        **changes,
    )


def test_a_said_batch_statistic_comes_before_the_loops_draws(tmp_path: Path) -> None:
    """Draws in the loop measured, the data split right, DP059 said: DP059's line first."""
    ev = _evidence(tmp_path, migration_warnings=(_DP059, _DP006))
    causes = diagnose(ev)
    keys = [c.key for c in causes]
    assert keys[0] == "batch_statistic_loss", keys
    assert "random_in_loop" in keys  # still listed, after
    assert "./train.py:8 the loss uses a statistic over the batch" in causes[0].detail
    assert "DP059" in causes[0].title and "DP059" in causes[0].fix


def test_said_ratio_and_table_losses_also_come_first(tmp_path: Path) -> None:
    """DP071 (a ratio of two sums) and DP142 (a table at the batch's indices) were named after
    the randomness causes before; now at their lines, first."""
    said = (
        "train.py:30:12: DP071 a loss divides one sum over the batch by another",
        "train.py:41:5: DP142 a table written at the batch's indices",
    )
    ev = _evidence(tmp_path, migration_warnings=said)
    keys = [c.key for c in diagnose(ev)]
    assert keys[:2] == ["batch_ratio_loss", "per_rank_tables"], keys


def test_draws_that_did_not_change_the_batches_say_so(tmp_path: Path) -> None:
    """The ranks' model inputs were the original's batch split: the draws' text says that
    they did not change the batches (the migration drew them alike)."""
    ev = _evidence(tmp_path)
    (cause,) = [c for c in diagnose(ev) if c.key == "random_in_loop"]
    assert "the draws did not change the batches" in cause.detail


@pytest.mark.e2e
def test_verify_names_dp059_first_for_a_drawn_batch_and_a_squared_mean(tmp_path: Path) -> None:
    """The program under verify (torchrun x2): NOT EQUIVALENT, the ranks fed the original's
    batch split, and the first cause is DP059 at line 8 (the base: random draws first)."""
    script = tmp_path / "train.py"
    script.write_text(PROGRAM)
    temp_root = tmp_path / "verify"
    temp_root.mkdir()
    report = verify(VerifyConfig(script, None, cwd=tmp_path, temp_root=temp_root, timeout=300.0))
    assert report.exit_code == 1, report
    assert report.sharding_status == "ok", report
    assert report.causes[0].key == "batch_statistic_loss", report.causes
    assert "train.py:8 " in report.causes[0].detail, report.causes[0]
