"""Which nn.Module classes of the program hold BatchNorm layers (DP216's fact).

A sample batch fixed before the training loop is run whole on every rank; through BatchNorm
in train mode its outputs depend on the batch it is normalised with, which DataParallel cut
into one chunk per GPU (batches/fixed_norms.py). The pass sees the wrap and its class only
where one module builds both; a program's wrap is often built by another module's function
(`netG = generator_init(device)`) around a class of a third. So the program's facts say, per
class (ModelClass.norms), whether its `__init__` builds a BatchNorm layer, itself or in a
class of the program it builds, once for the program (program/told.py) or the file
(own_models.py), read from the same ClassFacts as the other class facts.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator, Mapping

import libcst as cst

#: BatchNorm layer classes by qualified name (DP008, DP017, DP216).
BATCHNORM_LAYERS = frozenset(
    f"torch.nn{module}.{kind}BatchNorm{dim}d"
    for module in ("", ".modules.batchnorm", ".modules")
    for kind in ("", "Lazy")
    for dim in (1, 2, 3)
)
#: ... and SyncBatchNorm, which normalises by the batch too (a class's facts: DP216).
NORM_LAYERS = BATCHNORM_LAYERS | {f"torch.nn{m}.SyncBatchNorm" for m in ("", ".modules.batchnorm")}
#: torchvision models built with BatchNorm layers.
TORCHVISION_BN = re.compile(
    r"^torchvision\.models\.(\w+\.)?(resnet\d+|resnext\w+|wide_resnet\w+|densenet\d+|vgg\d+_bn"
    r"|mobilenet\w*|efficientnet\w*|inception_v3|googlenet|shufflenet\w*|mnasnet\w*|regnet\w*)$"
)


def builds_norm(cls: ast.ClassDef, resolve: Callable[[ast.expr], tuple[str, bool] | None]) -> bool:
    """The `__init__` of `cls` calls one of torch's BatchNorm classes."""
    init = [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"]
    for node in (n for i in init for n in ast.walk(i)):
        if isinstance(node, ast.Call):
            resolved = resolve(node.func)
            if resolved is not None and resolved[0] in NORM_LAYERS:
                return True
    return False


def norm_classes(
    own: Mapping[str, bool], children: Mapping[str, tuple[str, ...]]
) -> frozenset[str]:
    """The classes that build a BatchNorm layer themselves (`own`) or through a class of
    the program they build (`children`, transitively; a cycle is cut)."""
    done: dict[str, bool] = {}

    def holds(name: str, seen: frozenset[str]) -> bool:
        if name not in done:
            done[name] = own.get(name, False) or any(
                holds(child, seen | {name}) for child in children.get(name, ()) if child not in seen
            )
        return done[name]

    return frozenset(name for name in own if holds(name, frozenset()))


#: The base every torch BatchNorm derives from (a subclass of it is a BatchNorm).
_BATCHNORM_BASES = BATCHNORM_LAYERS | {
    "torch.nn.modules.batchnorm._BatchNorm",
    "torch.nn.modules.batchnorm._NormBase",
}


def own_forward_norms(
    module: cst.Module, qualified_names: Callable[[cst.CSTNode], set[str]]
) -> Iterator[tuple[cst.ClassDef, str]]:
    """(class, DP008's detail) for the top-level classes of `module` deriving from one of
    torch's BatchNorm classes that define a forward() of their own: ddp_sync_batchnorm
    leaves them per process, as SyncBatchNorm.convert_sync_batchnorm would replace each
    by a plain SyncBatchNorm and drop that forward (round 25: mattmacy/vnet.pytorch@a00c8ea's
    ContBatchNorm3d, batch statistics also in eval; converted, its evaluation used the
    running ones)."""
    for statement in module.body:
        if not isinstance(statement, cst.ClassDef):
            continue
        if not any(qualified_names(base.value) & _BATCHNORM_BASES for base in statement.bases):
            continue
        body = statement.body.body if isinstance(statement.body, cst.IndentedBlock) else ()
        if any(isinstance(s, cst.FunctionDef) and s.name.value == "forward" for s in body):
            yield (
                statement,
                (
                    f"{statement.name.value} defines its own forward(): --sync-batchnorm leaves "
                    "it per process (converted, that forward would be dropped)"
                ),
            )
