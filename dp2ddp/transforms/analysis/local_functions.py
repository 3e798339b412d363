"""Functions and lambdas a module binds inside its functions (or in a loop at module level),
by the qualified name a call of them resolves to: `train.<locals>.pick` for a `def pick():`
in `train()`, `Trainer.step.<locals>.noise` in a method, `pick` in a `for` at module level.

The draws of helpers (hazards/draws.py) are found through these as through the module's own
functions: a training loop that defines the function it calls, to draw its step's choice or
noise, draws as a helper does.

Read off the shared def-use view (flow.view), which lists every function and lambda of the
module with the scope around it: no walk of its own (stop 60's version walked every function
body of every module once more; stop 61 reads the view, with the same answers).
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.flow import view
from dp2ddp.flow.children import parent_map


def local_functions(module: cst.Module) -> dict[str, cst.FunctionDef | cst.Lambda]:
    """The functions defined, and lambdas bound to a plain name, inside the module's functions
    and its classes' methods, by the qualified name a call of them resolves to
    (`train.<locals>.pick`); at module level outside a def or class (a loop, an `if`, a
    plain assignment of a lambda) by their own names. Stop 60, v4-C,
    megvii-model/SinglePathOneShot@36eed6c src/Supernet/train.py: the training loop defines
    `get_uniform_sample_cand()` (and the lambda `get_random_cand` it calls), which draw the
    subnetwork of each step with np.random, and hands its result to the wrapped model;
    DataParallel drew one for the whole batch, each rank drew its own (the program seeds
    nothing), silently.

    Named are those whose every scope around is a function so named, up to a function of
    the module's body or a method written directly in the body of one of its classes (the
    module itself for the own-name case); one inside a lambda's or a nested class's scope
    is not. The view lists functions in source order, an outer one before those inside
    it: a later one of the same name wins, as a call at the end would find it.

    A module with none (every def a function of its body or a method of one of its
    classes, no lambda assigned) answers from the parent map its pass built, without a
    view: most modules of a program (a model's, read for its draws before its own
    migration) have none, and the view would be built for them only here."""
    if not _may_have_locals(module):
        return {}
    flow = view(module)
    prefixes: dict[cst.CSTNode, str] = {}  # a function whose locals are named: their prefix
    found: dict[str, cst.FunctionDef | cst.Lambda] = {}
    for function in flow.functions.values():
        node = function.node
        outer = flow.outer(node)
        parent = flow.parent(node)
        if isinstance(node, cst.FunctionDef):
            if parent is module:  # the module's function: named by the module's reader
                prefixes[node] = f"{node.name.value}.<locals>."
                continue
            if isinstance(outer, cst.ClassDef):  # a method: its own locals only
                if flow.parent(outer) is module and parent is outer.body:
                    prefixes[node] = f"{outer.name.value}.{node.name.value}.<locals>."
                continue
            name = node.name.value
        elif (
            isinstance(parent, cst.Assign)
            and len(parent.targets) == 1
            and isinstance(parent.targets[0].target, cst.Name)
        ):
            name = parent.targets[0].target.value
        else:
            continue
        if outer is not module:
            prefix = prefixes.get(outer) if isinstance(outer, cst.FunctionDef) else None
            if prefix is None:
                continue
            name = prefix + name
        found[name] = node
        if isinstance(node, cst.FunctionDef):
            prefixes[node] = f"{name}.<locals>."
    return found


def _may_have_locals(module: cst.Module) -> bool:
    """Some def of `module` is not a function of its body nor a method written directly in
    one of its classes' bodies, or some assignment binds a lambda: read off the parent map
    the passes' metadata built for the tree (flow.children.parent_map), by exact types."""
    parents = parent_map(module)
    if parents is None:  # a node object occurs twice: the view's own walk decides
        return True
    for node, parent in parents.items():
        kind = type(node)
        if kind is cst.FunctionDef:
            if parent is module:
                continue
            if type(parent) is cst.IndentedBlock:
                owner = parents.get(parent)
                if type(owner) is cst.ClassDef and parents.get(owner) is module:
                    continue
            return True
        if kind is cst.Lambda and type(parent) is cst.Assign:
            return True
    return False
