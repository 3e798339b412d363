"""ModelClass.replica: what the forward() of each class a DataParallel of the program may
hold returns on a replica, read in the class's own module once a project
(hazards/replica_classes.py), before the package re-exports copy the class's facts."""

from __future__ import annotations

from dataclasses import replace
from functools import partial

from dp2ddp.facts import ModelClass
from dp2ddp.program.discovery import Program
from dp2ddp.program.project import Project


def with_replicas(
    project: Project, program: Program, classes: tuple[ModelClass, ...]
) -> tuple[ModelClass, ...]:
    """`classes` with the replica facts of those a wrap may hold (ModelClass.held)."""
    from dp2ddp.transforms.hazards.replica_classes import module_replica_returns

    homes = {m.name.rpartition(".")[0] for m in classes if m.held and "." in m.name}
    if not homes:
        return classes
    found = dict(
        project.per_module(
            [m for m in program.modules if m.name in homes],
            "replica_returns",
            lambda m: module_replica_returns(
                m.name, m.path, m.source.text, partial(project.parsed_or_none, m)
            ),
        )
    )
    return tuple(replace(m, replica=found[m.name]) if m.name in found else m for m in classes)
