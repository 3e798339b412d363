"""The verdict of one `dp2ddp verify`, as data (rendered by `render`)."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

EQUIVALENT = "equivalent"
NOT_EQUIVALENT = "not equivalent"
FAILED = "run failed"
NOT_COMPARABLE = "not comparable"  # both runs went non-finite at the same step

EXIT_EQUIVALENT = 0
EXIT_NOT_EQUIVALENT = 1
EXIT_FAILED = 2


@dataclass(frozen=True)
class Cause:
    """A likely cause of non-equivalence: what, the measured evidence, what to do."""

    key: str
    title: str
    detail: str
    fix: str = ""


@dataclass(frozen=True)
class ParamRow:
    name: str
    shape: tuple[int, ...]
    step: int
    rel_error: float
    max_abs_diff: float
    passed: bool


@dataclass(frozen=True)
class Failure:
    """A run that crashed, timed out, or never stepped an optimizer."""

    run: str  # "original" | "migrated"
    rank: int | None
    reason: str  # "crashed" | "timed out" | "no optimizer step" | "harness error"
    message: str
    excerpt: str = ""


@dataclass(frozen=True)
class VerifyReport:
    verdict: str
    exit_code: int
    original: str
    migrated: str
    world_size: int
    backend: str
    steps_requested: int
    steps_compared: int = 0  # optimizer steps, all optimizers together
    optimizers: int = 1
    rtol: float = 0.0
    atol: float = 0.0
    initial_weights: str = ""
    ranks_in_sync: str = ""
    sharding_status: str = ""
    sharding: str = ""
    first_diverging_step: int | None = None
    worst_parameters: tuple[ParamRow, ...] = ()
    causes: tuple[Cause, ...] = ()
    notes: tuple[str, ...] = ()
    failures: tuple[Failure, ...] = ()
    seconds: dict[str, float] = field(default_factory=dict)
    #: --to-end: what was checked after the compared steps (label -> result), in order
    to_end: dict[str, str] = field(default_factory=dict)
    #: What an EQUIVALENT verdict covers where not the whole run: the steps compared, and with
    #: --to-end what the final parameters show of the later ones (end_checks.compared_scope)
    scope: str = ""

    def to_json(self) -> dict[str, Any]:
        """JSON-safe dict (non-finite floats as strings)."""
        data: dict[str, Any] = _finite(asdict(self))
        data["equivalent"] = self.exit_code == EXIT_EQUIVALENT
        return data


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value
