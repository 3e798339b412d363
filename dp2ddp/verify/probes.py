"""Count the randomness and per-batch statistics the script uses; optionally neutralise them.

Dropout masks and BatchNorm batch statistics cannot be aligned between one DataParallel
process and W DDP processes (a mask is drawn per process, statistics are taken over the
process's batch). The probes count them per window so that a mismatch can be explained;
`--no-dropout` / `--freeze-batchnorm` switch them off in both runs for the check only.
Runs inside the user's processes.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F

from dp2ddp.verify.recorder import Recorder

_DROPOUTS = (
    "dropout",
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "alpha_dropout",
    "feature_alpha_dropout",
)


def install(recorder: Recorder, no_dropout: bool, freeze_batchnorm: bool) -> None:
    for name in _DROPOUTS:
        native = getattr(F, name, None)
        if callable(native):
            setattr(F, name, _dropout_probe(recorder, native, no_dropout))
    native_sdpa = getattr(F, "scaled_dot_product_attention", None)
    if callable(native_sdpa):
        F.scaled_dot_product_attention = _sdpa_probe(recorder, native_sdpa, no_dropout)
    F.batch_norm = _batch_norm_probe(recorder, F.batch_norm, freeze_batchnorm)


def _dropout_probe(
    recorder: Recorder, native: Callable[..., torch.Tensor], disable: bool
) -> Callable[..., torch.Tensor]:
    signature = inspect.signature(native)

    @functools.wraps(native)
    def dropout(*args: Any, **kwargs: Any) -> torch.Tensor:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        p, training = bound.arguments.get("p", 0.0), bound.arguments.get("training", False)
        if training and p:
            recorder.current.dropout += 1
            if disable:
                result: torch.Tensor = bound.arguments["input"]
                return result
        return native(*args, **kwargs)

    return dropout


def _sdpa_probe(
    recorder: Recorder, native: Callable[..., torch.Tensor], disable: bool
) -> Callable[..., torch.Tensor]:
    @functools.wraps(native)
    def scaled_dot_product_attention(*args: Any, **kwargs: Any) -> torch.Tensor:
        args_list = list(args)
        p = kwargs.get("dropout_p", args_list[4] if len(args_list) > 4 else 0.0)
        if p:
            recorder.current.dropout += 1
            if disable:
                if len(args_list) > 4:
                    args_list[4] = 0.0
                else:
                    kwargs["dropout_p"] = 0.0
        return native(*args_list, **kwargs)

    return scaled_dot_product_attention


def _batch_norm_probe(
    recorder: Recorder, native: Callable[..., torch.Tensor], freeze: bool
) -> Callable[..., torch.Tensor]:
    signature = inspect.signature(native)

    @functools.wraps(native)
    def batch_norm(*args: Any, **kwargs: Any) -> torch.Tensor:
        bound = signature.bind(*args, **kwargs)
        if bound.arguments.get("training", False):
            if freeze and bound.arguments.get("running_mean") is not None:
                bound.arguments["training"] = False
            else:
                recorder.current.batchnorm += 1
        return native(*bound.args, **bound.kwargs)

    return batch_norm
