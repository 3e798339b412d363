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
    records = []
    for index, name in enumerate(("o", "m")):
        folder = tmp_path / name
        folder.mkdir()
        grads = {_KEYS[0]: torch.full((4,), 0.1), _KEYS[1]: torch.full((4,), bias_grads[index])}
        bias = torch.full((4,), bias_updates[index])
        updates = {_KEYS[0]: torch.full((4,), -1e-3), _KEYS[1]: bias}
        save_tensors(folder / protocol.TENSORS, {k: torch.zeros(4) for k in _KEYS}, [updates],
                     [{k: 1.0 for k in _KEYS}], [grads])  # fmt: skip
        event: dict[str, Any] = {"index": 1, "optimizer": 0, "optimizer_step": 1,
                                 "class": "Adam", "hyper": [_ADAM],
                                 "param_hashes": dict.fromkeys(_KEYS, "h")}  # fmt: skip
        data = {
            "status": protocol.STOPPED,
            "events": [event],
            "windows": [
                {
                    "index": 1,
                    "inputs": {"0": []},
                    "dropout": 0,
                    "batchnorm": 0,
                    "rng_consumed": None,
                }
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
