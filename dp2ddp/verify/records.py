"""Read back what the runner left in `<run>/rank<R>/` (harness side)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from dp2ddp.verify import arrays, protocol
from dp2ddp.verify.arrays import Vector

_V = TypeVar("_V")


@dataclass
class Tensors:
    """Rank 0's (and the original's) initial parameters and per-step updates (float64)."""

    init: dict[str, Vector] = field(default_factory=dict)
    updates: list[dict[str, Vector]] = field(default_factory=list)
    param_rms: list[dict[str, float]] = field(default_factory=list)
    #: machine epsilon of each parameter's own dtype (0 for a non-floating one)
    eps: dict[str, float] = field(default_factory=dict)
    #: each step's gradients as the optimizer received them (absent: none, or an older run)
    grads: list[dict[str, Vector]] = field(default_factory=list)


@dataclass
class RankRecord:
    rank: int
    directory: Path
    status: str | None  # None: the process never saved (killed, or crashed hard)
    data: dict[str, Any]
    progress: dict[str, Any]
    stdout: str
    stderr: str
    #: this record's parameter keys -> the original's for the same parameters, where the
    #: runs named them from other modules (same_parameters)
    aliases: dict[str, str] = field(default_factory=dict)

    @property
    def events(self) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = self.data.get("events", [])
        return events

    @property
    def windows(self) -> list[dict[str, Any]]:
        windows: list[dict[str, Any]] = self.data.get("windows", [])
        return windows

    @property
    def error(self) -> dict[str, str] | None:
        error: dict[str, str] | None = self.data.get("error")
        return error

    @property
    def steps(self) -> int:
        if self.status is not None:
            return len(self.events)
        return int(self.progress.get("steps", 0))

    def names(self) -> dict[str, str]:
        names: dict[str, str] = self.data.get("names", {})
        return self._renamed(names)

    def shapes(self) -> dict[str, list[int]]:
        shapes: dict[str, list[int]] = self.data.get("shapes", {})
        return self._renamed(shapes)

    def tensors(self) -> Tensors:
        path = self.directory / protocol.TENSORS
        if not path.exists():
            return Tensors()
        tables, meta = arrays.read(path)
        named = self._renamed
        return Tensors(
            named(tables["init"][0]),
            [named(step) for step in tables["updates"]],
            [named(step) for step in meta["param_rms"]],
            named(meta["eps"]),
            [named(step) for step in tables.get("grads", [])],
        )

    def final(self) -> dict[str, Vector]:
        """--to-end: the floating parameters when the script ended (float64)."""
        path = self.directory / protocol.FINAL
        if not path.exists():
            return {}
        tables, _ = arrays.read(path)
        return self._renamed(tables["final"][0])

    def _renamed(self, table: dict[str, _V]) -> dict[str, _V]:
        if not self.aliases:
            return table
        return {self.aliases.get(key, key): value for key, value in table.items()}


def same_parameters(original: RankRecord, migrated: RankRecord) -> dict[str, str]:
    """The migrated run's parameter keys that name the original's parameters otherwise,
    each -> the original's key: the keys found in one run only, paired in the order the
    optimizers hold them, where every pair has one shape and bitwise equal initial values.

    Why: a key is the parameter's name in the model verify saw called, and the two runs may
    see other modules. An original that calls its model's `forward()` itself (no wrap on
    CPU) is seen as its parts, each called as a model (`self.Decoder(x)`, then `self.fc`),
    while DDP's forward calls the whole model: `embedding.weight` against
    `Decoder.embedding.weight`, and verify said the runs optimize different parameters
    (MusicTransformer's `mt.forward(batch_x)`, stop 56). {} where they do not pair so."""
    o_shapes, m_shapes = original.data.get("shapes", {}), migrated.data.get("shapes", {})
    only_o = [k for k in o_shapes if k not in m_shapes]
    only_m = [k for k in m_shapes if k not in o_shapes]
    if not only_o or len(only_o) != len(only_m):
        return {}
    if any(o_shapes[o] != m_shapes[m] for o, m in zip(only_o, only_m, strict=True)):
        return {}
    o_init, m_init = original.tensors().init, migrated.tensors().init
    for o, m in zip(only_o, only_m, strict=True):
        first, second = o_init.get(o), m_init.get(m)
        if first is None or second is None or first.shape != second.shape:
            return {}
        if arrays.max_abs_diff(first.values, second.values) != 0.0:
            return {}
    return dict(zip(only_m, only_o, strict=True))


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _read_text(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


def load_rank(directory: Path, rank: int) -> RankRecord:
    data = _read_json(directory / protocol.RECORD)
    return RankRecord(
        rank=rank,
        directory=directory,
        status=data.get("status") if data else None,
        data=data,
        progress=_read_json(directory / protocol.PROGRESS),
        stdout=_read_text(directory / protocol.STDOUT),
        stderr=_read_text(directory / protocol.STDERR),
    )


def load_run(run_dir: Path, world: int) -> list[RankRecord]:
    """The records of ranks 0..world-1 (a rank that never started has an empty record)."""
    return [load_rank(run_dir / protocol.rank_dir_name(r), r) for r in range(world)]
