"""Whether a program's own collate_fn treats each sample alone (inside the user's processes).

Under DDP each rank collates its own part of DataParallel's batch; a collate that pads to
the batch's longest sample or normalises by the batch builds other samples from a part than
from the whole (causes: "the loader's collate_fn builds each batch as a whole"). A collate
that only stacks builds the same rows: bubbliiiing/srgan-pytorch@0f511ff's
`SRGAN_dataset_collate` (`np.array` of the low- and high-resolution images) was named as
the cause of a difference it could not make (docs/real-world.md, stop 47, w3). Measured,
not read: a few samples collated whole and in two parts, each call under its own seed (a
collate that draws, a random size per batch, draws apart as the ranks' do).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any

import torch

#: Samples collated whole and in two parts.
_PROBE = 4


def per_sample(
    size: int,
    load: Callable[[int], Any],
    collate: Callable[[list[Any]], Any],
    seeded: Callable[[Callable[[], Any], str], Any],
) -> bool | None:
    """True where `collate` of the first samples equals its two halves' joined along the
    samples; False where not; None where it cannot be tried (fewer than 2 samples, a read or
    a collate that raises)."""
    count = min(size, _PROBE)
    if count < 2:
        return None
    half = count // 2
    try:
        samples = [load(i) for i in range(count)]
        whole = seeded(lambda: collate(list(samples)), "whole")
        first = seeded(lambda: collate(samples[:half]), "first")
        second = seeded(lambda: collate(samples[half:]), "second")
        return _rowwise(whole, first, second, half, count - half)
    except Exception:  # noqa: BLE001  (the program's own collate: any failure means "unknown")
        return None


def _array(value: object) -> torch.Tensor | None:
    if isinstance(value, torch.Tensor):
        return value.detach().cpu()
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(value, numpy.ndarray) and value.dtype != object:
        return torch.as_tensor(value)
    return None


def _rowwise(whole: object, first: object, second: object, n_first: int, n_second: int) -> bool:
    """`whole` is `first` and `second` joined sample by sample: tensors and arrays along dim
    0, a per-sample list by concatenation, fields (a tuple, a dict) each alike."""
    arrays = [_array(v) for v in (whole, first, second)]
    if arrays[0] is not None or arrays[1] is not None or arrays[2] is not None:
        w, a, b = arrays
        if w is None or a is None or b is None:
            return False
        if w.dim() == 0:
            return _same(w, a) and _same(w, b)
        return (
            len(w) == n_first + n_second
            and len(a) == n_first
            and a.dim() == b.dim() == w.dim()
            and a.shape[1:] == b.shape[1:] == w.shape[1:]  # padded to each part's longest: no
            and _same(w, torch.cat([a, b]))
        )
    if isinstance(whole, Mapping):
        if not (isinstance(first, Mapping) and isinstance(second, Mapping)):
            return False
        keys = list(whole)
        return keys == list(first) == list(second) and all(
            _rowwise(whole[k], first[k], second[k], n_first, n_second) for k in keys
        )
    if isinstance(whole, list | tuple):
        if not (isinstance(first, list | tuple) and isinstance(second, list | tuple)):
            return False
        if len(first) == n_first and len(second) == n_second and len(whole) == n_first + n_second:
            return all(_same(x, y) for x, y in zip(whole, [*first, *second], strict=True))
        return len(whole) == len(first) == len(second) and all(
            _rowwise(*parts, n_first, n_second) for parts in zip(whole, first, second, strict=True)
        )
    return bool(whole == first == second)


def _same(x: object, y: object) -> bool:
    ax, ay = _array(x), _array(y)
    if ax is not None or ay is not None:
        return ax is not None and ay is not None and ax.shape == ay.shape and torch.equal(ax, ay)
    if isinstance(x, Mapping):
        return isinstance(y, Mapping) and list(x) == list(y) and all(_same(x[k], y[k]) for k in x)
    if isinstance(x, list | tuple):
        return (
            isinstance(y, list | tuple)
            and len(x) == len(y)
            and all(_same(p, q) for p, q in zip(x, y, strict=True))
        )
    return bool(x == y)
