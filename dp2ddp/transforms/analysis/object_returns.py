"""Which functions of a module hand back a library object, and which methods of its classes
keep what they are given: computed once per module (the program model, ProgramHints).

A PIL image a project helper returns (`images = stitch_images(...)`, whose every return is
`Image.fromarray(...)`: knazeri/edge-connect@3142579's sample grids) is saved by its own
`.save(path)`, a file write like `Image.fromarray(x).save(path)` (rank_zero/facts.py).
An object of the program fed a loop's per-batch figures through a method that stores them
in its own state (`progbar.add(n, values=logs)`, whose `add` sums them into `self.sums`;
a meter's `update`) holds running figures: shown through its own printing method, they are
this rank's share as a printed sum is (DP030, data/evaluation.py).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TypeVar

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import resolved_name
from dp2ddp.transforms.analysis.printing import Printing

_T = TypeVar("_T")

#: PIL image methods whose result is another image (`img.convert("RGB")`).
_IMAGE_METHODS = frozenset({"convert", "resize", "crop", "rotate", "transpose", "copy"})


def _own_nodes(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.AST]:
    """The function's nodes, not those of functions or classes nested in it."""
    found: list[ast.AST] = []
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        found.append(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return found


def object_functions(
    tree: ast.Module, table: dict[str, str], makers: frozenset[str]
) -> frozenset[str]:
    """Names of the module's top-level functions whose every `return` hands back an object
    one of `makers` (qualified names: `PIL.Image.fromarray`) builds: directly, through a
    name the function binds only to such objects, a method of the object returning another
    (`.convert(...)`), or another such function of the module (followed to a fixed point).
    `table`: the module's import_table."""
    functions = [s for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
    nodes = {id(f): _own_nodes(f) for f in functions}
    found: set[str] = set()

    def made(value: ast.expr | None, names: set[str]) -> bool:
        if isinstance(value, ast.Name):
            return value.id in names
        if not isinstance(value, ast.Call):
            return False
        func = value.func
        if isinstance(func, ast.Name) and func.id in found:
            return True
        if isinstance(func, ast.Attribute) and func.attr in _IMAGE_METHODS:
            if made(func.value, names):
                return True
        return resolved_name(func, table) in makers

    def returns_objects(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        own = nodes[id(function)]
        values: dict[str, list[ast.expr | None]] = {}
        for node in own:
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    for n in ast_nodes.walk(target):
                        if isinstance(n, ast.Name):
                            single = isinstance(target, ast.Name)
                            values.setdefault(n.id, []).append(node.value if single else None)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.With)):
                for n in ast_nodes.walk(node.target if not isinstance(node, ast.With) else node):
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                        values.setdefault(n.id, []).append(None)
        names: set[str] = set()
        while True:
            more = {
                name
                for name, bound in values.items()
                if name not in names and all(made(v, names) for v in bound)
            }
            if not more:
                break
            names |= more
        returns = [n for n in own if isinstance(n, ast.Return)]
        return bool(returns) and all(made(r.value, names) for r in returns)

    while True:
        more = {f.name for f in functions if f.name not in found and returns_objects(f)}
        if not more:
            return frozenset(found)
        found |= more


def keeping_methods(tree: ast.Module, printing: Printing) -> frozenset[str]:
    """`Class.method` of the methods of the module's classes that store what they are given
    in the object: an assignment to an attribute or item of `self` whose value reads one of
    the method's parameters, or a name bound from them (`for k, v in values: self.sums[k] =
    self.sums.get(k, 0.0) + v * n`; `self.avg = self.avg * m + val * (1 - m)`), or a call
    handing them to another such method (`add(n, values)` calling `self.update(..., values)`:
    edge-connect's Progbar). A method that only writes its argument out
    (`self.f.write(msg)`) keeps nothing. Also `Class.method()` for each method that prints
    (`printing`: analysis/printing.py) and reads its object's data (`self.sums`, not a
    method `self.m`), itself or through another method that does: it shows what was kept;
    one reading none (`f.write("finished")`) shows none of it."""
    found: set[str] = set()
    for cls in ast_nodes.listed(tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        methods = [s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
        own = {m.name for m in methods}
        stores: dict[str, list[tuple[ast.AST | None, ast.AST]]] = {}
        reads: dict[str, tuple[bool, set[str]]] = {}
        for method in methods:
            params = [a.arg for a in method.args.args + method.args.kwonlyargs]
            if not params or method.name == "__init__":
                continue
            stores[method.name] = _stores(method, params[0], set(params[1:]))
            mine = [
                n
                for n in _own_nodes(method)
                if isinstance(n, ast.Attribute)
                and isinstance(n.value, ast.Name)
                and n.value.id == params[0]
            ]
            reads[method.name] = (
                any(isinstance(n.ctx, ast.Load) and n.attr not in own for n in mine),
                {n.attr for n in mine if n.attr in own},
            )
        keeping = _fixpoint(
            stores, lambda pairs, known: any(t is not None or _called(v) in known for t, v in pairs)
        )
        reading = _fixpoint(reads, lambda pair, known: pair[0] or bool(pair[1] & known))
        found |= {f"{cls.name}.{name}" for name in keeping}
        found |= {f"{cls.name}.{name}()" for name in reading if (cls.name, name) in printing}
    return frozenset(found)


def _fixpoint(facts: dict[str, _T], holds: Callable[[_T, set[str]], bool]) -> set[str]:
    """The names whose fact `holds`, given the names found so far, until none is added."""
    known: set[str] = set()
    while True:
        more = {name for name, fact in facts.items() if name not in known and holds(fact, known)}
        if not more:
            return known
        known |= more


def _called(node: ast.AST) -> str:
    """ "m" of a call `self.m(...)` (the receiver checked by _stores); "" otherwise."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr
    return ""


def _stores(
    method: ast.FunctionDef | ast.AsyncFunctionDef, me: str, given: set[str]
) -> list[tuple[ast.AST | None, ast.AST]]:
    """What the method keeps of `given` (its parameters): (target, value) of each store in
    `me` (its object) whose value reads them or a name bound from them, (None, call) of
    each call of one of `me`'s methods handed them (`self.update(seen, values)`), and
    (container, call) of each call filling a container `me` holds with them
    (`self.history.append(loss.item())`, `loss` computed from the batch handed in: stop
    49, a trainer keeping each step's loss was taken for no meter, and rank 0 printed its
    own batches' mean as the epoch's, no word)."""
    own = _own_nodes(method)
    binds: list[tuple[ast.AST, ast.AST]] = []
    for node in own:
        if isinstance(node, ast.Assign):
            binds += [(t, node.value) for t in node.targets]
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            binds.append((node.target, node.value))
        elif isinstance(node, (ast.For, ast.comprehension)):
            binds.append((node.target, node.iter))

    def reads(value: ast.AST, names: set[str]) -> bool:
        return any(isinstance(n, ast.Name) and n.id in names for n in ast_nodes.walk(value))

    derived = set(given)
    while True:
        more = {
            n.id
            for target, value in binds
            if isinstance(target, (ast.Name, ast.Tuple, ast.List)) and reads(value, derived)
            for n in ast_nodes.walk(target)
            if isinstance(n, ast.Name) and n.id not in derived
        }
        if not more:
            break
        derived |= more
    found: list[tuple[ast.AST | None, ast.AST]] = []
    for target, value in binds:
        root = target
        while isinstance(root, (ast.Attribute, ast.Subscript)):
            root = root.value
        stores_in_me = isinstance(root, ast.Name) and root.id == me and root is not target
        if stores_in_me and reads(value, derived):
            found.append((target, value))
    for node in own:
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and any(reads(a, derived) for a in [*node.args, *(k.value for k in node.keywords)])
        ):
            continue
        if isinstance(node.func.value, ast.Name) and node.func.value.id == me:
            found.append((None, node))
        elif node.func.attr in _FILLING and _root(node.func.value) == me:
            found.append((node.func.value, node))  # `self.history.append(loss.item())`
    return found


#: Methods of a container that keep what they are given in it (`list.append`, `set.add`,
#: `dict.update`, `deque.appendleft`).
_FILLING = frozenset({"append", "extend", "insert", "appendleft", "add", "update", "setdefault"})


def _root(node: ast.AST) -> str:
    """ "self" of `self.history` / `self.logs["train"]`; "" where the root is no name or the
    node is the name itself."""
    if not isinstance(node, (ast.Attribute, ast.Subscript)):
        return ""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""
