"""Verify's causes from stop 51's validation round 4 (helper w5): draws inside the model's
forward told from the loop's own (v4-D, PoseFormer), and a kept print a figure decided not
to print told from a dropped one (v4-E)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from test_verify_units import _evidence

from dp2ddp.verify import scan, toend
from dp2ddp.verify.causes import diagnose

_FORWARD_PROBE = """
import sys
from pathlib import Path
import torch
from dp2ddp.verify import fingerprint, protocol
from dp2ddp.verify.recorder import Recorder

class Diffusion(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(10, 3)
        self.net = torch.nn.Linear(3, 3)
    def forward(self, x):
        t = torch.randint(0, 10, (x.shape[0],))  # the diffusion step, per call
        return self.net(x + self.embed(t)).mean()

options = protocol.RunnerOptions(out=sys.argv[1], steps=3, seed=0, file_attr="x.py")
recorder = Recorder(options, 0, 1, Path(sys.argv[1]))
fingerprint.install(recorder)
model = torch.nn.DataParallel(Diffusion())
plain = torch.nn.DataParallel(torch.nn.Linear(3, 3))
opt = torch.optim.SGD([*model.parameters(), *plain.parameters()], lr=0.1)
recorder._rng_mark = "start"  # as after a first step: the loop's draws are measured
model(torch.randn(4, 3)).backward()
plain(torch.ones(4, 3)).sum().backward()
w = recorder.current
print(w.forward_draws, w.rng_outside)
"""


def test_the_recorder_counts_draws_inside_a_training_forward(tmp_path: Path) -> None:
    """Cold-Diffusion-Models@f8b1379's `torch.randint(0, T, (b,))` in forward: one forward
    drew, the other did not; the loop's `torch.randn` before the first forward is the loop's
    own draw (outside the forwards). In a child: the fingerprint patches nn.Module.__call__."""
    result = subprocess.run(
        [sys.executable, "-c", _FORWARD_PROBE, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.stdout.strip() == "1 True", result.stderr


def test_a_draw_in_forward_is_named_with_its_line(tmp_path: Path) -> None:
    """v4-D: was "no measured cause matched; DP011 a candidate" (the loop's draws are not
    measured in a window that starts a DataLoader iterator); the forward's are."""
    ev = _evidence(
        tmp_path,
        1.3,
        window={"forward_draws": 2, "rng_consumed": None},
        forward_draws=("pkg/diffusion.py:431 torch.randint(0, self.num_timesteps, (b,))",),
    )
    causes = diagnose(ev)
    assert "unexplained" not in [c.key for c in causes]
    cause = next(c for c in causes if c.key == "random_in_forward")
    assert cause.title == "random numbers drawn inside the model's forward"
    assert "pkg/diffusion.py:431 torch.randint(0, self.num_timesteps, (b,))" in cause.detail
    assert "during 2 training forwards" in cause.detail


def test_a_library_layers_draw_in_forward_is_not_the_loops(tmp_path: Path) -> None:
    """PoseFormer@a908b29: timm's DropPath draws in forward; the loop's own generator (its
    RandomState, DP006) is split right and draws nothing global: no "drawn inside the training
    loop … DP006" cause, the forward's instead, saying no line of the program drew."""
    ev = _evidence(
        tmp_path,
        1.3,
        window={"forward_draws": 3, "rng_consumed": False},
        migration_warnings=(
            "run_poseformer.py:420:9: DP006 random tensors drawn inside the training loop: "
            "ChunkedGenerator.next_epoch() draws",
        ),
    )
    causes = diagnose(ev)
    assert "random_in_loop" not in [c.key for c in causes]
    cause = next(c for c in causes if c.key == "random_in_forward")
    assert "DropPath" in cause.detail and "DP006" not in cause.detail


def test_dropout_drawn_as_is_is_not_taken_for_a_forward_draw(tmp_path: Path) -> None:
    """Dropout not aligned (drawn as is, on GPUs) advances the RNG inside forward: dropout's
    own cause says it, not this one."""
    ev = _evidence(tmp_path, 1.3, window={"forward_draws": 2, "dropout": 2})
    assert "random_in_forward" not in [c.key for c in diagnose(ev)]


def test_the_scan_finds_global_draws_in_forward_methods(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(
        "import torch\n"
        "class M(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        t = torch.randint(0, 4, (x.shape[0],))\n"
        "        g = torch.rand(2, generator=self.gen)\n"
        "        return x * x.new_empty(x.shape).bernoulli_(0.9)\n"
        "noise = torch.randn(3)\n"
    )
    found = scan.forward_draws(tmp_path / "train.py")
    assert [f.split(" ", 1)[0].rsplit(":", 1)[1] for f in found] == ["4", "6"]


def test_a_kept_print_a_figure_decided_is_not_a_dropped_print() -> None:
    """v4-E (ShiQiu0419/GBNet@a71232e): `if test_acc >= best_test_acc: … 'Current Best: %f'`
    printed twice by the original, once by rank 0 (its test figure differed): the print is
    kept; a line rank 0 never printed is the dropped one."""
    original = "Test 0 acc 0.25\nCurrent Best: 0.250000\nTest 1 acc 0.25\nCurrent Best: 0.250000\n"
    rank0 = "Test 0 acc 0.25\nCurrent Best: 0.250000\nTest 1 acc 0.00\n"
    output = toend.check_output(original, [rank0, ""])
    assert output.missing == output.fewer == ["Current Best: 0.250000"]
    causes = toend.to_end_causes(output, {}, str)
    assert [c.key for c in causes] == ["output_fewer"]
    assert "the print is kept on rank 0's path" in causes[0].detail
    assert "Keep the original's prints" not in causes[0].fix
    dropped = toend.check_output(original, ["Test 0 acc 0.25\nTest 1 acc 0.25\n", ""])
    assert dropped.fewer == [] and len(dropped.missing) == 2
    causes = toend.to_end_causes(dropped, {}, str)
    assert [c.key for c in causes] == ["output_missing"]
    assert "never printed a line of the form of 2" in causes[0].detail
