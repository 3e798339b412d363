"""Which classes a program may build, and which layers its code calls from outside their
own class (DP041's two program-wide questions, asked by program/told.py and, for a single
file, by analysis/wrapped_model.py).

- **Built classes.** DP041's fallback for a model whose class is not known statically (a
  factory, a class picked from a dict) judges "any class of the program". A class the
  program never builds is no candidate: nupurkmr9/S2M2_fewshot@50b1c1b's `train_cifar.py`
  builds `BaselineTrain` or a `wrn28_10()` model, yet DP041 quoted `RelationModule` of
  methods/relationnet.py, built only by `RelationNet`, which that entry never names (stop
  45, v1-C). A class counts as built when the program reaches its name: from what every
  module runs at import (its top-level statements and decorators) and from the functions
  and classes that wrap a model, through the bodies of the functions and classes named
  there, transitively; names count as written (a bare name,
  an attribute, an identifier string: `getattr(m, "Net")`, `MODELS["Net"]`), by their last
  part, so two classes of one name are both reached (more candidates, never fewer). What
  reaches classes by a name known only at run time widens it: `getattr(mod, name)`,
  `vars(mod)`, `mod.__dict__` on an imported program module reach all its classes,
  `globals()` all of its own; an imported module handed to a call as a value
  (`config.init_obj("arch", module_arch)`, whose `getattr(module, name)` picks the class a
  config file names: emadeldeen24/AttnSleep@6b4d266, issue 28 round 23) all its classes;
  `eval`/`exec` or an import by a computed name anywhere, and every class counts (None).
- **Layers called from outside.** partial_forward.py's "forward() never uses self.x"
  already passes over a layer another method of its class reads. A layer the program calls
  through another object (`self.attention_layer.memory_layer(memory)` in another class's
  method: xcmyz/Tacotron2-Pytorch@a2d8b47's Attention, stop 45 v3-C; `model.module.fc(x)`;
  a helper's `net.head(x)`) is as little "never used": the attribute names called so
  (`<object>.x(...)`, `<object>.x.forward(...)`, the object not the method's own `self`)
  anywhere in the program are not claimed unused.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import import_binding

if TYPE_CHECKING:
    from dp2ddp.transforms.analysis.class_facts import ClassFacts

#: partial_forward.py's text for a layer no method of its class reads.
NEVER_USED = "never uses {attr}, which __init__ builds"

#: A function or class that wraps a model runs (the wrap is what DP041 is asked about),
#: whether or not the program's code names it (a fixture's `build()`, a method called
#: through an object).
_WRAPS = frozenset({"DataParallel", "DistributedDataParallel"})

#: Calls that run code named only at run time: every class may be built by them.
_UNKNOWN_CALLS = frozenset({"eval", "exec", "import_module", "__import__"})


@dataclass(frozen=True)
class ModuleReach:
    """One module's part of the program's reach (see the module docstring).

    top: the names its import-time code reads; bodies: per top-level function or class,
    the names its body reads (a class: every method, its bases); whole: the modules (import
    names as bound here) all of whose classes a dynamic lookup may reach; unknown: it runs
    code named at run time; called: attribute names it calls through an object other than
    a method's own `self`."""

    top: frozenset[str]
    bodies: tuple[tuple[str, frozenset[str]], ...]
    whole: frozenset[str]
    unknown: bool
    called: frozenset[str]


def module_reach(import_name: str, tree: ast.Module) -> ModuleReach:
    """Read one module (see ModuleReach)."""
    aliases: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                bound, target = import_binding(alias)
                aliases[bound] = target.rpartition(".")[2]
        elif isinstance(node, ast.ImportFrom):  # relative too: modules match by last part
            for alias in node.names:
                aliases[alias.asname or alias.name] = alias.name
    top: set[str] = set()
    bodies: list[tuple[str, frozenset[str]]] = []
    whole: set[str] = set()
    called: set[str] = set()
    unknown = False
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for decorator in node.decorator_list:
                top |= _names(decorator)
            if node.decorator_list and isinstance(node, ast.ClassDef):
                top.add(node.name)  # a registry decorator: built by a name at run time
            reads, dynamic, runs = _body(node, aliases, import_name, called)
            bodies.append((node.name, frozenset(reads)))
            if _WRAPS & reads:
                top.add(node.name)  # a wrap runs here: what it wraps is built
        else:
            reads, dynamic, runs = _body(node, aliases, import_name, called)
            top |= reads
        whole |= dynamic
        unknown = unknown or runs
    return ModuleReach(frozenset(top), tuple(bodies), frozenset(whole), unknown, frozenset(called))


def built_classes(modules: Iterable[tuple[str, ModuleReach]]) -> frozenset[str] | None:
    """The bare names of the classes the program may build (see the module docstring);
    None when any may be (code named at run time)."""
    listed = list(modules)
    if any(reach.unknown for _, reach in listed):
        return None
    index: dict[str, list[frozenset[str]]] = {}
    frontier: list[str] = []
    by_module: dict[str, list[str]] = {}  # by the import name's last part (see _body)
    for name, reach in listed:
        for each, reads in reach.bodies:
            index.setdefault(each, []).append(reads)
        frontier.extend(reach.top)
        by_module.setdefault(name.rpartition(".")[2], []).extend(n for n, _ in reach.bodies)
    for _, reach in listed:  # a dynamic lookup reaches every function and class of a module
        for target in reach.whole:
            frontier.extend(by_module.get(target, ()))
    reached: set[str] = set()
    while frontier:
        name = frontier.pop()
        if name in reached:
            continue
        reached.add(name)
        for reads in index.get(name, ()):
            frontier.extend(reads - reached)
    return frozenset(reached)


def called_attributes(modules: Iterable[ModuleReach]) -> frozenset[str]:
    """The attribute names the program calls through another object than `self`."""
    found: set[str] = set()
    for reach in modules:
        found |= reach.called
    return frozenset(found)


def spare_called(
    classes: Mapping[str, ClassFacts], called: frozenset[str]
) -> dict[str, ClassFacts]:
    """`classes` less the "never uses self.x" claims of layers the program calls through
    another object (see the module docstring)."""
    spared: dict[str, ClassFacts] = {}
    for name, facts in classes.items():
        kept = tuple(
            (use, holds)
            for use, holds in facts.partial
            if use.how != NEVER_USED or use.attribute not in called
        )
        spared[name] = facts if len(kept) == len(facts.partial) else replace(facts, partial=kept)
    return spared


def _names(node: ast.AST) -> set[str]:
    """The names `node` reads: bare names, attributes, identifier strings."""
    found: set[str] = set()
    for each in ast_nodes.walk(node):
        if isinstance(each, ast.Name):
            found.add(each.id)
        elif isinstance(each, ast.Attribute):
            found.add(each.attr)
        elif isinstance(each, ast.Constant) and isinstance(each.value, str):
            if each.value.isidentifier():
                found.add(each.value)
    return found


def _body(
    node: ast.AST, aliases: dict[str, str], own: str, called: set[str]
) -> tuple[set[str], set[str], bool]:
    """The names `node` reads (bare names, attributes, identifier strings), the modules a
    dynamic lookup in it reaches whole, and whether it runs code named at run time; the
    attribute names it calls through another object go into `called` (one walk for all)."""
    names: set[str] = set()
    whole: set[str] = set()
    runs = False
    for each in ast_nodes.walk(node):
        if isinstance(each, ast.Name):
            names.add(each.id)
        elif isinstance(each, ast.Attribute):
            names.add(each.attr)
            if each.attr == "__dict__" and isinstance(each.value, ast.Name):
                if each.value.id in aliases:
                    whole.add(aliases[each.value.id])
        elif isinstance(each, ast.Constant):
            if isinstance(each.value, str) and each.value.isidentifier():
                names.add(each.value)
        elif isinstance(each, ast.Call):
            attribute = _called(each)
            if attribute:
                called.add(attribute)
            func = ast_nodes.last_name(each.func)
            for handed in (*each.args, *(k.value for k in each.keywords)):
                if isinstance(handed, ast.Name) and handed.id in aliases:
                    whole.add(aliases[handed.id])  # `init_obj("arch", module_arch)`
            if func in _UNKNOWN_CALLS and not all(
                isinstance(a, ast.Constant) for a in each.args[:1]
            ):
                runs = True
            elif func == "globals":
                whole.add(own.rpartition(".")[2])
            elif func in ("getattr", "vars") and each.args:
                held = each.args[0]
                dynamic = func == "vars" or (
                    len(each.args) > 1 and not isinstance(each.args[1], ast.Constant)
                )
                if dynamic and isinstance(held, ast.Name) and held.id in aliases:
                    whole.add(aliases[held.id])
    return names, whole, runs


def _called(call: ast.Call) -> str:
    """The attribute name `call` calls through an object that is not a method's own `self`
    (`a.b.x(...)`, `m.x(...)`, `a.x.forward(...)`); "" for any other call."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return ""
    if func.attr in ("forward", "__call__") and isinstance(func.value, ast.Attribute):
        func = func.value
    if isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"):
        return ""
    return func.attr
