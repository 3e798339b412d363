"""Classes of the program that move their own tensors: a `cuda()` method of their own.

`.cuda()` on a tensor or a module becomes `.to(DEVICE)` (transforms/devices.py). A plain
object of the program may define `cuda()` itself (HobbitLong/CMC@7b227be's `AliasMethod`, an
alias sampler holding two tensors: `def cuda(self): self.prob = self.prob.cuda(); ...`) and
no `to()`: the rewritten call `self.multinomial.to(DEVICE)` raised AttributeError on every
rank at start. Its own `cuda()` body is migrated like any code (its tensors' `.cuda()` become
`.to(DEVICE)`), so a call of it stays `.cuda()`: right whether or not the class also has a
`to()`.

A module of the program counts too ("module", no class) when it defines a top-level
function `cuda` ("to the GPU if there is one"): `utils.cuda(x)` calls it, whichever import
binds `utils`.

A class counts when it defines `cuda` in its own body, whatever its bases: a call on its
objects runs that method first. An nn.Module subclass's own `cuda()` counts too (GT-RIPL/
Continual-Learning-Benchmark@d78b997's agent `NormalNN(nn.Module)`, whose `cuda()` moved the
model and wrapped it in DataParallel: rewritten to torch's `self.to(DEVICE)`, the migrated
wrap inside was never run, and the ranks trained apart, silently; stop 61 v3-A). A class
without one counts when each base is `object` or such a class of the same module (an
nn.Module subclass, or a base of another module, may bring a `cuda()` that is torch's).
Found with `ast` for the program's modules (ProgramHints.own_device: "module.Class") and
with libcst for the module being migrated.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

import libcst as cst

from dp2ddp.transforms._support.ast_nodes import resolved_name

#: The methods that say how an object moves (a `cuda` of its own, or a `to`).
_MOVES = frozenset({"cuda", "to"})


def _closure(classes: dict[str, tuple[set[str], list[str]]]) -> set[str]:
    """The classes (name -> (its methods, its bases' names)) that count: a `cuda` of their
    own (any bases), or none and an own-device base, every base `object`, counted, or a
    plain class of the module that brings no `cuda` (a mixin: no `cuda`, every base
    `object` or such; round 31, ldf921/video-representation@1d085ab's trainers
    `class SmallTrainer(CEMixin, Base)`: `trainer.cuda()` became `.to(DEVICE)`, and the
    wrap inside Base.cuda() never ran)."""
    found = {name for name, (methods, _) in classes.items() if "cuda" in methods}
    plain: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, (methods, bases) in classes.items():
            if name in found or name in plain:
                continue
            if not all(b == "object" or b in found or b in plain for b in bases):
                continue
            if any(b in found for b in bases):
                found.add(name)
                changed = True
            elif "cuda" not in methods and "to" not in methods:
                plain.add(name)  # brings no cuda(): neutral as a base
                changed = True
    return found


def own_device_classes(
    name: str, tree: ast.Module, table: dict[str, str] | None = None
) -> frozenset[str]:
    """What module `name` (`tree`, its imports `table`) tells of its top-level classes for
    the program's closure (program_device_classes): "module.Class|m1,m2|base1,base2" (the
    class's own methods among cuda/to, its bases' qualified names: a base of this module by
    its "module.Class", an imported one through `table`, "object", or "?"), and "module"
    itself where it defines a top-level `cuda` (`utils.cuda(x)` through any import of it,
    `import pkg.utils as utils`, `from pkg import utils`, calls the program's own function:
    v1-A, stop 42)."""
    table = table or {}
    prefix = f"{name}." if name else ""
    local = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and not node.keywords:
            methods = {
                s.name
                for s in node.body
                if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name in _MOVES
            }
            bases = []
            for base in node.bases:
                if isinstance(base, ast.Name) and base.id == "object":
                    bases.append("object")
                elif isinstance(base, ast.Name) and base.id in local:
                    bases.append(prefix + base.id)
                else:
                    bases.append(resolved_name(base, table) or "?")
            found.add(f"{prefix}{node.name}|{','.join(sorted(methods))}|{','.join(bases)}")
    if name and any(
        isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "cuda"
        for node in tree.body
    ):
        found.add(name)
    return frozenset(found)


def program_device_classes(told: Iterable[frozenset[str]]) -> frozenset[str]:
    """The program's classes whose objects move their own tensors ("module.Class"), and its
    modules defining a top-level `cuda`: `_closure` over every module's classes together,
    so a base of another module counts (round 31, ldf921/video-representation@1d085ab:
    `class ConvLSTMFramework(SeqClsMixin, Framework)`, its `cuda()` in lib/framework.py's
    Framework: `framework.cuda()` became `.to(DEVICE)`, an AttributeError)."""
    classes: dict[str, tuple[set[str], list[str]]] = {}
    modules: set[str] = set()
    for records in told:
        for record in records:
            if "|" not in record:
                modules.add(record)
                continue
            qualified, methods, bases = record.split("|")
            classes[qualified] = (
                {m for m in methods.split(",") if m},
                bases.split(",") if bases else [],
            )
    return frozenset(_closure(classes) | modules)


def local_device_classes(module: cst.Module) -> frozenset[str]:
    """The same for the module being migrated, by the plain names its code uses."""
    classes: dict[str, tuple[set[str], list[str]]] = {}
    for node in module.body:
        if isinstance(node, cst.ClassDef) and not any(a.keyword for a in node.bases):
            methods = {s.name.value for s in node.body.body if isinstance(s, cst.FunctionDef)}
            bases = [a.value.value if isinstance(a.value, cst.Name) else "" for a in node.bases]
            classes[node.name.value] = (methods, bases)
    return frozenset(_closure(classes))
