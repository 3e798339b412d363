"""Gradients zero up to rounding in both runs are not compared (V8, stop 31: a conv bias
right before BatchNorm under Adam, Jungjee/RawNet's verify said NOT EQUIVALENT): noise
against noise has no relative error; the report names them, with their sizes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from dp2ddp.verify import protocol
from dp2ddp.verify.compare import compare_updates, rounding_note
from dp2ddp.verify.recorder import save_tensors
from dp2ddp.verify.records import RankRecord

_ADAM = {"lr": 1e-3, "betas": [0.9, 0.999], "eps": 1e-8}
_KEYS = ("o0.g0.p0", "o0.g0.p1")  # a weight, and a bias right before BatchNorm


def _pair(tmp_path: Path, bias_grads: tuple[float, float], bias_updates: tuple[float, float]
          ) -> tuple[RankRecord, RankRecord]:  # fmt: skip
    """One Adam step of two parameters: the weight's gradient and update alike in both
    runs, the bias's gradient `bias_grads` (original, migrated), its update `bias_updates`."""
    return _steps(tmp_path, [bias_grads], [bias_updates], _ADAM, "Adam")


def _steps(tmp_path: Path, bias_grads: list[tuple[float, float]],
           bias_updates: list[tuple[float, float]], hyper: dict[str, Any], kind: str,
           ) -> tuple[RankRecord, RankRecord]:  # fmt: skip
    """Steps of two parameters: the weight's gradient and update alike in both runs, the
    bias's gradients and updates per step as given (original, migrated)."""
    records = []
    for index, name in enumerate(("o", "m")):
        folder = tmp_path / name
        folder.mkdir(parents=True)
        grads = [{_KEYS[0]: torch.full((4,), 0.1), _KEYS[1]: torch.full((4,), g[index])}
                 for g in bias_grads]  # fmt: skip
        updates = [{_KEYS[0]: torch.full((4,), -1e-3), _KEYS[1]: torch.full((4,), u[index])}
                   for u in bias_updates]  # fmt: skip
        save_tensors(folder / protocol.TENSORS, {k: torch.zeros(4) for k in _KEYS}, updates,
                     [{_KEYS[0]: 1.0, _KEYS[1]: 0.0}] * len(updates), grads)  # fmt: skip
        events: list[dict[str, Any]] = [
            {"index": step + 1, "optimizer": 0, "optimizer_step": step + 1, "class": kind,
             "hyper": [hyper], "param_hashes": dict.fromkeys(_KEYS, "h")}
            for step in range(len(updates))
        ]  # fmt: skip
        data = {
            "status": protocol.STOPPED,
            "events": events,
            "windows": [
                {
                    "index": step + 1,
                    "inputs": {"0": []},
                    "dropout": 0,
                    "batchnorm": 0,
                    "rng_consumed": None,
                }
                for step in range(len(updates))
            ],  # fmt: skip
            "names": {_KEYS[0]: "conv.weight", _KEYS[1]: "conv.bias"},
            "shapes": dict.fromkeys(_KEYS, [4]),
            "samplers": [],
            "wrappers": [],
        }
        records.append(RankRecord(0, folder, protocol.STOPPED, data, {}, "", ""))
    return records[0], records[1]


def test_rounding_level_gradients_are_not_compared(tmp_path: Path) -> None:
    """The bias's gradient is ~1e-9 against the weight's 0.1 in both runs, opposite signs:
    Adam steps it by +-lr; the update passes, and the note names it, with its sizes."""
    original, migrated = _pair(tmp_path, (1e-9, -2e-9), (-1e-3, 1e-3))
    numerics = compare_updates(original, migrated, 1e-4, 1e-8)
    assert numerics.passed, numerics.diffs
    assert numerics.gradient_first_diverging_step is None
    assert set(numerics.rounding_level) == {"conv.bias"}
    note = rounding_note(numerics)
    assert note is not None and "not comparable: the gradients of conv.bias" in note
    assert "rms 1e-09 original, 2e-09 migrated, against 0.1" in note


def test_a_small_real_gradient_is_still_compared(tmp_path: Path) -> None:
    """1e-4 against 0.1 is far above rounding (64 eps of 0.1 is 7.6e-7): compared, and a
    bias whose gradient doubled fails as before."""
    original, migrated = _pair(tmp_path, (1e-4, 2e-4), (-1e-3, 1e-3))
    numerics = compare_updates(original, migrated, 1e-4, 1e-8)
    assert not numerics.passed and numerics.rounding_level == {}
    assert numerics.gradient_first_diverging_step == 1


# -- SGD with momentum (stop 43, v3-C: Uason-Chen/CTR-GCN, conv biases before BatchNorm) ------
_SGD = {"lr": 0.1, "momentum": 0.9, "dampening": 0.0, "nesterov": True, "weight_decay": 4e-4}


def test_sgd_moves_noise_gradients_into_noise_updates(tmp_path: Path) -> None:
    """The bias (its value 0) has gradients ~1e-7 against 0.1 at every step (64 eps of 0.1
    is 7.6e-7), apart in both runs; SGD with Nesterov momentum makes updates of them, 4e-8
    apart at step 3: above atol 1e-8, yet within lr * (1 + mu) * the noise's sum (1.9e-7).
    Passed, and said so."""
    grads = [(1e-7, -2e-7), (2e-7, 1e-7), (-1e-7, 3e-7)]
    updates = [(-1e-10, 2e-10), (-5e-10, 1e-10), (1e-9, -1e-9)]
    original, migrated = _steps(tmp_path, grads, updates, _SGD, "SGD")
    assert compare_updates(original, migrated, 1e-4, 1e-8).passed
    big = [(-1e-10, 2e-10), (-5e-10, 1e-10), (1e-8, -3e-8)]  # 4e-8 apart at step 3
    original, migrated = _steps(tmp_path / "big", grads, big, _SGD, "SGD")
    numerics = compare_updates(original, migrated, 1e-4, 1e-8)
    assert numerics.passed, numerics.diffs
    assert [d.step for d in numerics.noise] == [3]
    note = rounding_note(numerics)
    assert note is not None and "SGD: the updates of conv.bias differ (up to 4e-08 abs." in note
    assert "not comparable: the gradients of conv.bias" in note


def test_sgd_noise_bound_holds(tmp_path: Path) -> None:
    """Beyond lr * (1 + mu) * the noise's sum (0.19 * 1e-6, plus atol): fails."""
    grads = [(1e-7, -2e-7), (2e-7, 1e-7), (-1e-7, 3e-7)]
    updates = [(0.0, 0.0), (0.0, 0.0), (3e-7, -3e-7)]
    original, migrated = _steps(tmp_path, grads, updates, _SGD, "SGD")
    numerics = compare_updates(original, migrated, 1e-4, 1e-8)
    assert not numerics.passed and numerics.noise == []


def test_sgd_excuses_no_parameter_that_had_a_real_gradient(tmp_path: Path) -> None:
    """A gradient far above rounding at step 1, noise later: its update is not noise."""
    grads = [(1e-4, 1e-4), (2e-7, 1e-7), (-1e-7, 3e-7)]
    updates = [(-1e-5, -1e-5), (-5e-10, 1e-10), (1e-8, -3e-8)]
    original, migrated = _steps(tmp_path, grads, updates, _SGD, "SGD")
    numerics = compare_updates(original, migrated, 1e-4, 1e-8)
    assert not numerics.passed and numerics.noise == []
    assert numerics.first_diverging_step == 3
