"""Read back what the runner left in `<run>/rank<R>/` (harness side)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dp2ddp.verify import arrays, protocol
from dp2ddp.verify.arrays import Vector


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
        return names

    def shapes(self) -> dict[str, list[int]]:
        shapes: dict[str, list[int]] = self.data.get("shapes", {})
        return shapes

    def tensors(self) -> Tensors:
        path = self.directory / protocol.TENSORS
        if not path.exists():
            return Tensors()
        tables, meta = arrays.read(path)
        return Tensors(
            tables["init"][0],
            tables["updates"],
            meta["param_rms"],
            meta["eps"],
            tables.get("grads", []),
        )

    def final(self) -> dict[str, Vector]:
        """--to-end: the floating parameters when the script ended (float64)."""
        path = self.directory / protocol.FINAL
        if not path.exists():
            return {}
        tables, _ = arrays.read(path)
        return tables["final"][0]


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
