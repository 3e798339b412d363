"""Write a planned program's files (program/migrate.py plans them in memory)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from dp2ddp.errors import InputError
from dp2ddp.migrate.atomic import write_atomic
from dp2ddp.migrate.discovery import describe_os_error
from dp2ddp.program.discovery import Stamp
from dp2ddp.result import FileOutcome

if TYPE_CHECKING:
    from dp2ddp.program.plan import ProgramPlan


def write_plan(plan: ProgramPlan) -> None:
    """Write every changed file atomically; a file edited since it was read is refused."""
    for index, outcome in enumerate(plan.outcomes):
        data = plan.data.get(outcome.path)
        if outcome.status != "migrated" or data is None:
            continue
        stamp = plan.stamps.get(outcome.path)
        try:
            if stamp is not None and _stamp(outcome.path) != stamp:
                raise OSError(0, "the file changed on disk during the run; run again")
            write_atomic(outcome.path, data)
        except OSError as exc:
            message = f"cannot write: {describe_os_error(exc)}"
            error = InputError(message).format(outcome.path)
            plan.outcomes[index] = FileOutcome(outcome.path, "failed", outcome.result, error)


def _stamp(path: str) -> Stamp:
    st = os.stat(path)
    return (st.st_ino, st.st_size, st.st_mtime_ns)
