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

import libcst as cst


def _closure(classes: dict[str, tuple[set[str], list[str]]]) -> set[str]:
    """The classes (name -> (its methods, its bases' names)) that count: a `cuda` of their
    own (any bases), or none and an own-device base, every base `object` or counted."""
    found = {name for name, (methods, _) in classes.items() if "cuda" in methods}
    changed = True
    while changed:
        changed = False
        for name, (_, bases) in classes.items():
            if name in found or not all(b == "object" or b in found for b in bases):
                continue
            if any(b in found for b in bases):
                found.add(name)
                changed = True
    return found


def own_device_classes(name: str, tree: ast.Module) -> frozenset[str]:
    """The "module.Class" of each top-level class of `tree` (module `name`) whose objects move
    their own tensors with a `cuda()` of the program's."""
    classes: dict[str, tuple[set[str], list[str]]] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and not node.keywords:
            methods = {
                s.name for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
            }
            bases = [b.id if isinstance(b, ast.Name) else "" for b in node.bases]
            classes[node.name] = (methods, bases)
    found = {f"{name}.{c}" if name else c for c in _closure(classes)}
    if name and any(
        isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "cuda"
        for node in tree.body
    ):
        # The module itself: `utils.cuda(x)` through any import of it (`import pkg.utils as
        # utils`, `from pkg import utils`) calls the program's own function (v1-A, stop 42).
        found.add(name)
    return frozenset(found)


def local_device_classes(module: cst.Module) -> frozenset[str]:
    """The same for the module being migrated, by the plain names its code uses."""
    classes: dict[str, tuple[set[str], list[str]]] = {}
    for node in module.body:
        if isinstance(node, cst.ClassDef) and not any(a.keyword for a in node.bases):
            methods = {s.name.value for s in node.body.body if isinstance(s, cst.FunctionDef)}
            bases = [a.value.value if isinstance(a.value, cst.Name) else "" for a in node.bases]
            classes[node.name.value] = (methods, bases)
    return frozenset(_closure(classes))
