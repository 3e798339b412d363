"""Stop 60 s3: verify's causes of round 12 (docs/real-world.md, stop 59 v1-C, v3-D, and stop
59 s3's left item 1).

- A Dataset adds noise per sample in a helper its `__init__` also calls
  (adntjr4/denoising_practice@b53363d): the migration's `with ddp_same_random():` around the
  helper's draw runs per sample too, and every rank draws rank 0's noise for its own samples.
  No model input was a loaded tensor, so only the DataLoader batches were compared (split
  right) and verify said "no known cause". The ranks' model inputs are now compared with the
  original's, and the block entered while reading samples is named with the original's draw.
  dp2ddp migrate now shares the call that builds the dataset (`__init__`'s) rather than
  the helper's draw where the helper also runs per sample: its migration is EQUIVALENT
  (verify seeds each sample's read alike in both runs).
- An adversarial weight perturbation (csdongxian/AWP@a7acf5d): the model's weights are moved
  in place by a proxy's step before the model's first step. "initial weights differ ...
  although every RNG was seeded alike" came first, the per-rank draw second; the draw now
  comes first and the weights are said to follow the earlier step.
- Dropout under a `DataParallel(model, dim=1)` the CPU run does not build
  (vansky/neural-complexity@3c057f8): the original's masks were drawn per chunk of the
  time-major batch's rows; they are now drawn per chunk along the wrap's dim, as each rank
  draws its columns' mask.
- A small tensor beside large ones: the absolute term is each tensor's own (at most ATOL_SHARE
  of its update), so a halved update of a parameter in a group of lr 1e-8 is no longer hidden
  by the step's largest update; a tensor that fails only so is judged on its gradients.

One original process and one launch (shared_verify) for the pairs; the rest are unit tests.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch
from shared_verify import Pair, Shared, report_of, run_pairs

from dp2ddp.verify import protocol, scan
from dp2ddp.verify.compare import compare_updates
from dp2ddp.verify.recorder import save_tensors
from dp2ddp.verify.records import RankRecord

CASES = Path(__file__).parent / "verify_cases_s60"

PAIRS: dict[str, Pair] = {
    "noise_shared": Pair(
        "test_a_datasets_draws_made_rank_0s_per_sample_are_named",
        CASES / "sample_noise_dp.py",
        CASES / "sample_noise_shared_ddp.py",
    ),
    "noise_migrated": Pair(
        "test_per_sample_draws_left_to_each_process_are_equivalent", CASES / "sample_noise_dp.py"
    ),
    "perturbed": Pair(
        "test_weights_moved_in_place_follow_the_draw", CASES / "weight_perturb_dp.py"
    ),
    "seq_dropout": Pair(
        "test_dropout_of_a_dim1_wrap_is_drawn_per_column_chunk",
        CASES / "seq_first_dropout_dp.py",
        CASES / "seq_first_dropout_ddp.py",
    ),
    "small_group": Pair(
        "test_a_small_tensor_is_judged_on_its_own_update",
        CASES / "small_group_dp.py",
        CASES / "small_group_ddp.py",
    ),
}


@pytest.fixture(scope="module")
def shared(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Shared]:
    """The selected tests' pairs, run in one original process and one launch."""
    return run_pairs(request, tmp_path_factory.mktemp("pairs"), PAIRS, timeout=400.0)


def _causes(report: object) -> str:
    return "\n".join(f"{c.key}: {c.title}: {c.detail}" for c in report.causes)  # type: ignore[attr-defined]


@pytest.mark.e2e
def test_a_datasets_draws_made_rank_0s_per_sample_are_named(shared: dict[str, Shared]) -> None:
    """At the base (4e255806): "no measured cause matched" (sharding ok on the DataLoader
    batches, the model inputs never compared)."""
    report = report_of(shared, "noise_shared")
    assert report.exit_code == 1, report
    cause = report.causes[0]
    assert cause.key == "shared_sample_draws", _causes(report)
    assert "sample_noise_shared_ddp.py:270 (in add_noise, the migration's; rank 1)" in (
        cause.detail
    ), cause.detail
    assert "sample_noise_shared_ddp.py line 271 (torch.randn)" in cause.detail, cause.detail


@pytest.mark.e2e
def test_per_sample_draws_left_to_each_process_are_equivalent(shared: dict[str, Shared]) -> None:
    """verify's own migration. At the base: dp2ddp migrate put the helper's draw in `with
    ddp_same_random():` (the helper also builds the kept copies in `__init__`), every rank
    drew rank 0's noise, NOT EQUIVALENT ("no measured cause"). Now the building call is
    shared and each process draws its samples' noise: EQUIVALENT, every sample's read
    seeded alike in both runs."""
    report = report_of(shared, "noise_migrated")
    assert report.exit_code == 0, _causes(report)


@pytest.mark.e2e
def test_weights_moved_in_place_follow_the_draw(shared: dict[str, Shared]) -> None:
    """At the base: "initial weights differ ... although every RNG was seeded alike" first,
    "random numbers drawn inside the training loop" second."""
    report = report_of(shared, "perturbed")
    assert report.exit_code == 1, report
    keys = [c.key for c in report.causes]
    assert "initial_weights" not in keys, _causes(report)
    assert keys[0] == "random_in_loop" and keys[-1] == "moved_in_place", _causes(report)
    assert "line 36 (attack() draws delta.uniform_)" in report.causes[0].detail, _causes(report)
    moved = report.causes[-1].detail
    assert "when their optimizer first steps (step 2" in moved, moved
    assert "held the same values in both runs at step 1" in moved, moved


@pytest.mark.e2e
def test_a_small_tensor_is_judged_on_its_own_update(shared: dict[str, Shared]) -> None:
    """At the base: EQUIVALENT (the gain's update, about 6e-9, halved: within atol 1e-8,
    the step's cap 1e-4 of the network's 1e-2)."""
    report = report_of(shared, "small_group")
    assert report.exit_code == 1, report
    assert report.first_diverging_step == 1, report
    worst = report.worst_parameters[0]
    assert worst.name == "gain" and not worst.passed, report.worst_parameters


@pytest.mark.e2e
def test_dropout_of_a_dim1_wrap_is_drawn_per_column_chunk(shared: dict[str, Shared]) -> None:
    """At the base: NOT EQUIVALENT, "dropout masks did not line up ... rank 0's draw 1 was
    over (5, 2, 8), the original's for its chunk over (3, 4, 8)" (cut along dim 0)."""
    report = report_of(shared, "seq_dropout")
    assert report.exit_code == 0, _causes(report)
    assert any("aligned" in note for note in report.notes), report.notes


# -- units ---------------------------------------------------------------------------------
_SGD = {"lr": 1e-8, "momentum": 0.0, "dampening": 0.0, "nesterov": False, "weight_decay": 0.0}
_KEYS = ("o0.g0.p0", "o0.g0.p1")


def _records(
    tmp_path: Path, small: tuple[float, float], grads: tuple[float, float]
) -> tuple[RankRecord, RankRecord]:
    """One SGD step of two parameters of 4 elements each (rms 1e-3): the first moved by
    1e-2 in both runs, its gradient 1.0 (the step's largest); the second's update and
    gradient as given (original, migrated)."""
    out = []
    for index, name in enumerate(("o", "m")):
        folder = tmp_path / name
        folder.mkdir(parents=True)
        moved = {_KEYS[0]: torch.full((4,), 1e-2), _KEYS[1]: torch.full((4,), small[index])}
        grad = {_KEYS[0]: torch.full((4,), 1.0), _KEYS[1]: torch.full((4,), grads[index])}
        save_tensors(folder / protocol.TENSORS, {k: torch.zeros(4) for k in _KEYS},
                     [moved], [dict.fromkeys(_KEYS, 1e-3)], [grad])  # fmt: skip
        event: dict[str, Any] = {
            "index": 1, "optimizer": 0, "optimizer_step": 1, "class": "SGD", "hyper": [_SGD],
            "param_hashes": dict.fromkeys(_KEYS, "h"),
        }  # fmt: skip
        data = {
            "status": protocol.STOPPED,
            "events": [event],
            "windows": [{"index": 1, "inputs": {"0": []}}],
            "names": {_KEYS[0]: "body.weight", _KEYS[1]: "gain"},
            "shapes": dict.fromkeys(_KEYS, [4]),
        }
        out.append(RankRecord(0, folder, protocol.STOPPED, data, {}, "", ""))
    return out[0], out[1]


def test_the_absolute_term_is_each_tensors_own(tmp_path: Path) -> None:
    """The gain's update 1e-8 against 5e-9 (its gradient halved): within atol 1e-8 and the
    step's cap (1e-4 of 1e-2), so it passed; capped by its own update it fails, named."""
    original, migrated = _records(tmp_path / "a", (1e-8, 5e-9), (1.0, 0.5))
    numerics = compare_updates(original, migrated, 1e-4, 1e-8)
    assert not numerics.passed and numerics.first_diverging_step == 1
    assert [d.name for d in numerics.diffs if not d.passed] == ["gain"]


def test_a_small_tensor_within_the_steps_rounding_passes(tmp_path: Path) -> None:
    """A small update that differs by 4e-9 where its gradient (1e-3) differs by 1e-6, well
    within float rounding of the step's largest gradient (64 eps of 1.0): rounding, passed;
    a gradient 2e-4 apart (above that level and rtol) fails."""
    original, migrated = _records(tmp_path / "a", (1e-8, 6e-9), (1e-3, 1e-3 + 1e-6))
    assert compare_updates(original, migrated, 1e-4, 1e-8).passed
    original, migrated = _records(tmp_path / "b", (1e-8, 6e-9), (1e-3, 1.2e-3))
    assert not compare_updates(original, migrated, 1e-4, 1e-8).passed


def test_draws_in_names_a_functions_draws(tmp_path: Path) -> None:
    source = tmp_path / "data.py"
    source.write_text(
        "import numpy as np, torch\n"
        "class D:\n"
        "    def noise(self, x):\n"
        "        a = torch.randn(x.shape)\n"
        "        x.uniform_(0, 1)\n"
        "        return a + np.random.rand()\n"
        "    def other(self):\n"
        "        return torch.rand(3)\n"
    )
    assert scan.draws_in(source, "noise") == [
        "4 (torch.randn)",
        "5 (x.uniform_)",
        "6 (np.random.rand)",
    ]
    assert scan.draws_in(tmp_path / "missing.py", "noise") == []
