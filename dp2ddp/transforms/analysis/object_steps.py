"""Training steps run as methods of the program's objects, for "a loop that trains"
(training.py: the one home of that question).

A loop whose step is a method of a plain trainer object (`loss = trainer.train_step(x,
y)`, backward and `optimizer.step()` inside it, the wrapped model held as `self.model`)
trains, whatever `torch.no_grad()` forwards it also holds (the fixed-noise snapshot of a
GAN: `with torch.no_grad(): snap = trainer.model(fixed)`). Before round 25 the data pass
followed plain names and methods called on `self` only, so such a loop was read as an
evaluation loop (a no_grad forward and no step seen): its training loader was left whole,
DP015 said "every rank evaluates all of it, and its figures are the original's", and every
rank trained on the whole global batch (ethanj801/GAN@dfdb88a train.py:189, its
`GAN.train_discriminator(images)`).

Here a call `obj.name(...)` runs the method `name` of each class of this module whose
instance `obj` may hold (held_objects.py: `trainer = Trainer()`, `self.trainer`, a
parameter every call hands one), and a call of another module's function or of a method of
another module's class on such an object trains where that module says so
(`module_steppers`, told as ProgramLoaders.stepping).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator

import libcst as cst
from libcst.helpers import get_full_name_for_node

from dp2ddp.flow import DefUse, view
from dp2ddp.transforms.analysis.held_objects import held
from dp2ddp.transforms.analysis.training import function_trains_through, own_callees


def step_callees(flow: DefUse, call: cst.Call) -> Iterator[cst.FunctionDef]:
    """The functions of this module `call` may run (training.own_callees), and for
    `obj.name(...)` on an object other than the caller's own `self` the method `name` of
    each class of this module `obj` may hold an instance of (its construction, read
    through names, attributes and parameters: held_objects.py). `self.model.train()` on a
    DataParallel wrap holds no class of the program: nothing is followed."""
    yield from own_callees(flow, call)
    func = call.func
    if not isinstance(func, cst.Attribute) or _own_self(flow, func.value):
        return
    for built in held(flow.module)(func.value).calls:
        owner = flow.class_called(built)
        method = flow.method(owner, func.attr.value) if owner is not None else None
        if method is not None and isinstance(method.node, cst.FunctionDef):
            yield method.node


def _own_self(flow: DefUse, receiver: cst.BaseExpression) -> bool:
    function = flow.function_around(receiver)
    return (
        isinstance(receiver, cst.Name)
        and function is not None
        and receiver.value == function.self_name
    )


def module_steppers(import_name: str, module: cst.Module) -> dict[str, bool]:
    """The top-level functions and the methods of the top-level classes of `module` that
    run a backward pass or step an optimizer, themselves or through the functions and
    objects' methods of this module they call (`step_callees`), by the qualified name an
    importer resolves ("trainer.Trainer.train_step"): ProgramLoaders.stepping."""
    if ".backward" not in module.code and ".step(" not in module.code:
        return {}
    flow = view(module)
    runs = partial_callees(flow)
    found: dict[str, bool] = {}
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef):
            if function_trains_through(statement, _spelled, runs):
                found[f"{import_name}.{statement.name.value}"] = True
        elif isinstance(statement, cst.ClassDef):
            for inner in statement.body.body:
                if isinstance(inner, cst.FunctionDef) and function_trains_through(
                    inner, _spelled, runs
                ):
                    name = f"{import_name}.{statement.name.value}.{inner.name.value}"
                    found[name] = True
    return found


def partial_callees(flow: DefUse) -> Callable[[cst.Call], list[cst.FunctionDef]]:
    """`step_callees` of `flow`'s module, as trains_through's `runs`."""
    return lambda call: list(step_callees(flow, call))


def _spelled(node: cst.CSTNode) -> set[str]:
    """A name as spelled (`torch.autograd.backward`): the module facts have no metadata."""
    name = get_full_name_for_node(node)
    return {name} if name is not None else set()


def told_step(
    call: cst.Call,
    qualified_names: Callable[[cst.CSTNode], set[str]],
    methods: Callable[[cst.Call], list[str]],
    stepping: Collection[str],
) -> bool:
    """`call` runs a function of another module of the program that trains (`stepping`:
    ProgramLoaders.stepping), by its qualified name (`train_step(model, x)` imported), or a
    method of another module's class on an object built from it (`methods`: the
    "module.Class.method" names a call `obj.name(...)` may run)."""
    from dp2ddp.transforms._support.qualified import told_name

    if not stepping:
        return False
    if told_name(qualified_names(call.func), stepping) is not None:
        return True
    return any(told_name({name}, stepping) is not None for name in methods(call))
