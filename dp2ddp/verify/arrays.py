"""Tensors as float64 arrays in a torch-free file, and the few vector sums verify needs.

The runner (torch loaded anyway) writes the parameters and updates the harness compares as
raw float64 values behind a JSON header; the harness reads them with the standard library
and never imports torch, which cost it more CPU time than the comparison itself (see
benchmarks/bench_verify.py). float64 holds every float32/float16/bfloat16 value exactly, so
the comparison sees the same numbers as a float64 comparison in torch. Both sides import
this module: the standard library only, numpy (optional) for large arrays.

File layout: 8 bytes (little-endian) header length, the UTF-8 JSON header, then the values
in native byte order (written and read on the same machine). The header is
`{"meta": ..., "tables": {name: [{key: [offset, shape]}, ...]}}`, offsets in values.
"""

from __future__ import annotations

import json
import math
import operator
import os
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

_HEADER_SIZE = 8
#: Values per slice in the sums: Python floats are made a slice at a time, not all at once.
_CHUNK = 1 << 20


class _Shaped(Protocol):
    @property
    def shape(self) -> Any: ...


T = TypeVar("T", bound=_Shaped)


@dataclass(frozen=True)
class Vector:
    """A tensor's values, flattened to float64, with its shape."""

    shape: tuple[int, ...]
    values: array[float]


def write(
    path: Path, tables: dict[str, list[dict[str, T]]], encode: Callable[[T], bytes], meta: object
) -> None:
    """Write tables of {key: tensor} as float64 (`encode`: a tensor's raw float64 bytes), one
    tensor at a time, atomically (a temporary file, then a rename)."""
    header: dict[str, list[dict[str, list[Any]]]] = {}
    offset = 0
    for name, rows in tables.items():
        header[name] = []
        for row in rows:
            entry: dict[str, list[Any]] = {}
            for key, tensor in row.items():
                shape = [int(n) for n in tensor.shape]
                entry[key] = [offset, shape]
                offset += math.prod(shape)
            header[name].append(entry)
    head = json.dumps({"meta": meta, "tables": header}).encode()
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as out:
        out.write(len(head).to_bytes(_HEADER_SIZE, "little"))
        out.write(head)
        for rows in tables.values():
            for row in rows:
                for tensor in row.values():
                    out.write(encode(tensor))
    os.replace(tmp, path)


def read(path: Path) -> tuple[dict[str, list[dict[str, Vector]]], Any]:
    """(tables, meta) of a file `write` wrote."""
    data = path.read_bytes()
    size = int.from_bytes(data[:_HEADER_SIZE], "little")
    header = json.loads(data[_HEADER_SIZE : _HEADER_SIZE + size])
    values: array[float] = array("d")
    values.frombytes(memoryview(data)[_HEADER_SIZE + size :])
    tables = {
        name: [
            {
                key: Vector(tuple(shape), values[offset : offset + math.prod(shape)])
                for key, (offset, shape) in row.items()
            }
            for row in rows
        ]
        for name, rows in header["tables"].items()
    }
    return tables, header["meta"]


# -- sums: numpy for large arrays where it is installed (torch usually brings it; it loads in
# a tenth of torch's time), else C-level loops of the standard library (no element is touched
# in Python code). Small arrays, the usual case, never pay numpy's import.
_NUMPY_FROM = 1 << 16  # values


def _numpy(size: int) -> Any:
    if not size or size < _NUMPY_FROM:
        return None
    try:
        import numpy
    except ImportError:
        return None
    return numpy


def _slices(a: array[float]) -> Iterator[array[float]]:
    return (a[start : start + _CHUNK] for start in range(0, len(a), _CHUNK))


def norm(a: array[float]) -> float:
    """Euclidean norm (nan if a value is nan and none is infinite)."""
    np = _numpy(len(a))
    if np is not None:
        return _numpy_norm(np, np.frombuffer(a, np.float64))
    return math.hypot(*(math.hypot(*part) for part in _slices(a)))


def distance(a: array[float], b: array[float]) -> float:
    """Euclidean norm of b - a (same length)."""
    np = _numpy(len(a))
    if np is not None:
        return _numpy_norm(np, np.frombuffer(b, np.float64) - np.frombuffer(a, np.float64))
    return math.hypot(*(math.dist(x, y) for x, y in zip(_slices(a), _slices(b), strict=True)))


def _numpy_norm(np: Any, x: Any) -> float:
    """As math.hypot: an infinite value wins over a nan."""
    return math.inf if np.isinf(x).any() else float(np.linalg.norm(x))


def max_abs_diff(a: array[float], b: array[float]) -> float:
    """max |b - a| (nan if any difference is nan; 0 for empty arrays)."""
    np = _numpy(len(a))
    if np is not None:
        diffs = np.abs(np.frombuffer(b, np.float64) - np.frombuffer(a, np.float64))
        return math.nan if np.isnan(diffs).any() else float(diffs.max())
    values = array("d", map(abs, map(operator.sub, b, a)))
    if any(map(math.isnan, values)):
        return math.nan
    return max(values, default=0.0)


def dot(a: array[float], b: array[float]) -> float:
    np = _numpy(len(a))
    if np is not None:
        return float(np.dot(np.frombuffer(a, np.float64), np.frombuffer(b, np.float64)))
    return math.fsum(map(operator.mul, a, b))


def scaled(a: array[float], factor: float) -> array[float]:
    np = _numpy(len(a))
    if np is not None:
        return array("d", (np.frombuffer(a, np.float64) * factor).tobytes())
    return array("d", map(factor.__mul__, a))
