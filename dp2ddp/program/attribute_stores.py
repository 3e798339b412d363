"""The attributes a program module stores on objects another module may hand it, for
`attribute_assigned_elsewhere` (program/uniformity.py): a configuration's `args.data` is the
same on every rank only if no other module stores a `data` attribute on it.

A store on an attribute of a torch object of the module's own class cannot be on a handed
configuration: `self.u.data = u` in a method of `PlanarFlow(nn.Module)`, whose `self.u` is
registered as a parameter (`register_parameter("u", nn.Parameter(...))`) or bound only to
torch calls in the class (stop 46 v2-E, rtqichen/ffjord@994864a's lib/layers/norm_flows.py:
`args.data`, the entry's dataset option, was judged rank-dependent for it, and every
`download=True` dataset got DP065 "may differ between ranks"). Such a store is left out when
the class's every base is torch's (`nn.Module`: no base of the program binds `self.u`) and
the class binds `self.u` by no other means. Every other store counts, as before: `x.a = ...`,
`del x.a`, `setattr(x, "a", ...)`.

A store on a method's own instance (`self.a = ...` in a class that never rebinds `self`) is
kept apart (`on_self`): it reaches only instances of that class or its subclasses, so it
cannot reach a parsed command line (an argparse.Namespace, analysis/across_modules.py) unless
some module calls the class's method with another object as `self` (`C.m(obj, ...)`:
`unbound` holds such receivers' last names)."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from dp2ddp.transforms._support import ast_nodes

#: Methods that register a torch object under a name given as their first argument.
_REGISTERS = frozenset({"register_parameter", "register_buffer", "register_module", "add_module"})


@dataclass(frozen=True)
class Stores:
    """A module's attribute stores: `anywhere`, on objects that may be handed to it;
    `on_self`, `self.a = ...` directly in a method of a class, as (attribute, class, the
    last names of its bases): only an instance of that class (or of a subclass) holds it;
    `unbound`, the last names of the receivers of calls `C.m(obj, ...)` whose first argument
    is not `self`, whose method may then run on obj."""

    anywhere: frozenset[str]
    on_self: tuple[tuple[str, str, frozenset[str]], ...]
    unbound: frozenset[str] = frozenset()


def stored_attributes(tree: ast.Module) -> Stores:
    """Attributes `tree` stores or deletes on objects that may be handed to it."""
    torch_names = _torch_aliases(tree)
    found: set[str] = set()
    owned: set[int] = set()
    on_self: dict[int, tuple[str, str, frozenset[str]]] = {}
    unbound: set[str] = set()
    for cls in ast_nodes.walk(tree):
        if isinstance(cls, ast.ClassDef):
            owned |= _torch_attribute_stores(cls, torch_names)
            bases = frozenset(_last(b) for b in cls.bases)
            if _rebinds_self(cls):
                continue
            for node in ast.walk(cls):  # an inner class, walked later, takes its own
                if isinstance(node, ast.Attribute) and _on_self(node) is not None:
                    on_self[id(node)] = (node.attr, cls.name, bases)
    for node in ast_nodes.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
            if id(node) in on_self:
                continue
            if id(node) not in owned:
                found.add(node.attr)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("setattr", "delattr")
            and len(node.args) > 1
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            found.add(node.args[1].value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            first = node.args[0]
            if not (isinstance(first, ast.Name) and first.id == "self"):
                receiver = _last(node.func.value)
                if receiver:
                    unbound.add(receiver)
    stores = {
        on_self[id(n)]
        for n in ast_nodes.walk(tree)
        if isinstance(n, ast.Attribute)
        and isinstance(n.ctx, (ast.Store, ast.Del))
        and id(n) in on_self
    }
    return Stores(
        frozenset(found), tuple(sorted(stores, key=lambda s: (s[0], s[1]))), frozenset(unbound)
    )


def _rebinds_self(cls: ast.ClassDef) -> bool:
    """Some code in `cls` binds `self` otherwise than as the first parameter of one of its
    own (not static) methods: then `self.a = ...` there may store on any object."""
    methods = {
        id(f)
        for f in cls.body
        if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
        and not any(_last(d) == "staticmethod" for d in f.decorator_list)
    }
    for node in ast.walk(cls):
        if isinstance(node, ast.Name) and node.id == "self" and not isinstance(node.ctx, ast.Load):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            arguments = node.args
            params = arguments.posonlyargs + arguments.args
            names = [a.arg for a in params + arguments.kwonlyargs]
            first = id(node) in methods and bool(params) and params[0].arg == "self"
            if names.count("self") > (1 if first else 0):
                return True
    return False


def _last(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _torch_aliases(tree: ast.Module) -> set[str]:
    """Names the module binds to torch or a part of it (`torch`, `nn`, `F`)."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "torch":
                    names.add(alias.asname or "torch")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "torch":
            names |= {alias.asname or alias.name for alias in node.names}
    return names


def _root(node: ast.expr) -> str:
    while isinstance(node, (ast.Attribute, ast.Call, ast.Subscript)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else ""


def _torch_attribute_stores(cls: ast.ClassDef, torch_names: set[str]) -> set[int]:
    """The stores `self.a.x = ...` in `cls` whose `self.a` is a torch object: every base of
    `cls` is torch's, and `cls` binds `self.a` only to torch calls or registers it."""
    if not cls.bases or any(_root(base) not in torch_names for base in cls.bases):
        return set()
    torch_bound: set[str] = set()
    other_bound: set[str] = set()
    for node in ast.walk(cls):
        if isinstance(node, ast.Call) and len(node.args) > 1:
            name = node.args[1] if isinstance(node.func, ast.Name) else node.args[0]
            if isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr"):
                other_bound.add(str(name.value) if isinstance(name, ast.Constant) else "")
            elif isinstance(node.func, ast.Attribute) and node.func.attr in _REGISTERS:
                if isinstance(name, ast.Constant):
                    torch_bound.add(str(name.value))
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                parts = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
                for part in parts:
                    held = _on_self(part)
                    if held is None:
                        continue
                    value = node.value
                    made = (
                        part is target
                        and isinstance(value, ast.Call)
                        and _root(value.func) in torch_names
                    )
                    (torch_bound if made else other_bound).add(held)
    return {
        id(node)
        for node in ast.walk(cls)
        if isinstance(node, ast.Attribute)
        and isinstance(node.ctx, (ast.Store, ast.Del))
        and (held := _on_self(node.value)) is not None
        and held in torch_bound
        and held not in other_bound
    }


def _on_self(node: ast.AST) -> str | None:
    """`self.a` as "a"; None for anything else."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        if node.value.id == "self":
            return node.attr
    return None
