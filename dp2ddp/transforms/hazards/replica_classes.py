"""What each class's forward() returns on a replica (ModelClass.replica), read in the class's
own module with that module's proofs (hazards.replica_means, hazards.losses' sums and
means), and told to the modules that wrap it: a class imported from another module of the
program (round 22's bhheo/AB_distillation kept its distillation module beside the training
loop; a program keeping it in models.py had its sum of replica means scaled by WORLD_SIZE,
every update doubled, said only by DP004 at the forward's `reduction='sum'`)."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst
from libcst.codemod import CodemodContext

from dp2ddp.loss_facts import ReplicaReturns
from dp2ddp.options import MigrateOptions
from dp2ddp.transforms._support.base import MigrationState, MigrationTransform
from dp2ddp.transforms.hazards.losses import LossChecks


class _ReadReplicas(MigrationTransform):
    """Reads a module of the program: its classes' ReplicaReturns (changes nothing)."""

    NAME = "replica_classes"
    DESCRIPTION = "Find what each model class's forward() returns on a replica."

    def __init__(self, context: CodemodContext, state: MigrationState) -> None:
        super().__init__(context, state)
        self.found: dict[str, ReplicaReturns] = {}

    def visit_Module(self, node: cst.Module) -> bool:
        checks = LossChecks(self)
        checks.read_module(node)
        proof = checks.replicas()
        for statement in node.body:
            if isinstance(statement, cst.ClassDef):
                found = proof.class_returns(statement)
                if found is not None:
                    self.found[statement.name.value] = found
        return False


def module_replica_returns(
    import_name: str, path: str, source: str, parsed: Callable[[], cst.Module | None]
) -> dict[str, ReplicaReturns]:
    """The module's classes whose forward() returns a mean or a quotient per replica, by
    the qualified name an importer resolves (`models.LossNet`)."""
    if "def forward" not in source or "return" not in source:
        return {}
    module = parsed()
    if module is None:
        return {}
    state = MigrationState(MigrateOptions())
    state.text = source
    reader = _ReadReplicas(CodemodContext(filename=path), state)
    reader.transform_module(module)
    return {f"{import_name}.{name}": found for name, found in reader.found.items()}
