"""A training step that runs the wrapped model through `.module`: past DDP (DP108).

DataParallel's `model.module` is the module itself: `model.module(x)`, or a method of the
module's class that runs its layers (`model.module.train_step(xb, yb)`, a GAN's
`gen.module.infer(zs)`), computed the whole batch on one device, and the update was the
original's. Under DDP the same call skips the wrapper: the reducer that averages the
gradients over the ranks is armed by the wrapper's forward only, so each rank steps on the
gradient of its own shard and the ranks drift apart with no error (our reproduction: rank
0's weight −0.104, rank 1's 0.528 after one epoch; no warning before stop 43; stop 47's
v2-A, raahii/infogan-pytorch@3729f48: the generator apart by 3.4e-3 after 8 steps). Said,
not rewritten: a call of the wrapper cannot run a method of the module, and a forward
through `.module` may be meant (a penalty term whose gradients the gradient-penalty pass
averages by hand, which it says).

Found: a call whose function is `W.module` or `W.module.forward` (W a wrapped model:
MigrationState.wrapped), in a loop or a function that backpropagates, not under
`torch.no_grad()`; `W.module.m(...)` where `m` is a method of a class of this module that
backpropagates itself (its own body calls `.backward()` or steps an optimizer); and, in such
a step, `W.module.m(...)` where `m` is a method of one of the program's model classes that
runs its layers (ModelClass.runs, analysis/layer_methods.py), or where no model class of the
program has a method `m` proved to run none (`gen.module.sample_latent_vars(n)` is proved;
`model.module.encoder(x)`, a submodule, is not) and `m` is none of nn.Module's own methods
that compute nothing of the forward (`parameters()`, `state_dict()`). A block that averages
gradients by hand (`ddp_average_gradients(...)`, the gradient-penalty pass's) is left alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import DefUse, view
from dp2ddp.transforms._support.nodes import NO_GRAD, ModuleNodes, walk
from dp2ddp.transforms.analysis.own_methods import MODULE_API, model_methods
from dp2ddp.transforms.analysis.training import QualifiedNames, function_trains, loop_trains
from dp2ddp.transforms.hazards.outside_trainers import outside_trainer_calls

if TYPE_CHECKING:
    from dp2ddp.transforms._support.base import MigrationTransform

#: How a pass finds a node's parent.
Parent = Callable[[cst.CSTNode], cst.CSTNode | None]
#: The gradient-penalty pass's own forward through `.module`, averaged by hand.
_AVERAGED = "ddp_average_gradients"


def module_bypasses(
    nodes: ModuleNodes, wrapped: set[str], t: MigrationTransform, module: cst.Module
) -> Iterator[tuple[cst.Call, str, str]]:
    """(call, "DP108", detail) for each training step through `.module` of a wrapped model;
    then (call, "DP223", detail) for each call of a method of a wrapped class dp2ddp cannot
    edit that trains itself past the wrap (hazards/outside_trainers.py)."""
    if not wrapped:
        return
    said: set[int] = set()
    for call, detail in _bypasses(nodes, wrapped, t, view(module)):
        said.add(id(call))
        yield call, "DP108", detail
    for call, detail in outside_trainer_calls(nodes, wrapped, t, module):
        if id(call) not in said and not _in_training(call, t.parent, t.qualified_names):
            yield call, "DP223", detail


def _bypasses(
    nodes: ModuleNodes, wrapped: set[str], t: MigrationTransform, flow: DefUse
) -> Iterator[tuple[cst.Call, str]]:
    """module_bypasses' DP108."""
    code, parent, qualified_names = t.code, t.parent, t.qualified_names

    training = {
        f.name.value
        for c in nodes.of(cst.ClassDef)
        for f in c.body.body
        if isinstance(f, cst.FunctionDef) and function_trains(f, qualified_names)
    }
    classes: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] | None = None
    for call in nodes.of(cst.Call):
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value == "module":
            if code(func.value) not in wrapped or not _in_step(call, parent, qualified_names, flow):
                continue
            yield (
                call,
                (
                    f"`{code(call)}` runs the forward of the wrapped {code(func.value)} through "
                    "`.module`, in a step that backpropagates"
                ),
            )
        elif (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Attribute)
            and func.value.attr.value == "module"
            and code(func.value.value) in wrapped
        ):
            method, model = func.attr.value, code(func.value.value)
            if method in training:
                yield (
                    call,
                    (
                        f"`{code(call)}` runs {method}(), a method of the module that "
                        f"backpropagates itself, on the module of the wrapped {model}"
                    ),
                )
                continue
            if not _in_step(call, parent, qualified_names, flow):
                continue
            if classes is None:
                classes = model_methods(t)
            running = sorted(c for c, (runs, _) in classes.items() if method in runs)
            if method == "forward" or running:
                what = f"{method}() of {', '.join(running)}" if running else "its forward"
                yield (
                    call,
                    (
                        f"`{code(call)}` runs {what} through the `.module` of the wrapped "
                        f"{model}, in a step that backpropagates: those layers' gradients are "
                        "not averaged over the ranks"
                    ),
                )
            elif method not in MODULE_API and not any(
                method in quiet for _, quiet in classes.values()
            ):
                yield (
                    call,
                    (
                        f"`{code(call)}` calls {method} on the `.module` of the wrapped {model} "
                        "in a step that backpropagates, and no method of the program's model "
                        f"classes named {method} is proved to run none of its layers"
                    ),
                )


def _in_training(
    call: cst.Call,
    parent: Parent,
    qualified_names: QualifiedNames,
) -> bool:
    """A loop or function around `call` backpropagates, no `torch.no_grad()` is around it
    there, and no gradient is averaged by hand in it."""
    return _in_step(call, parent, qualified_names, None)


def _in_step(
    call: cst.Call,
    parent: Parent,
    qualified_names: QualifiedNames,
    flow: DefUse | None,
    depth: int = 0,
) -> bool:
    """_in_training, and with `flow` (the module's def-use view) also where `call` is in a
    function of this module that trains nowhere itself and some call of it is in such a
    step (round 30, YangL-04-20/ParamsDrag@5d58cc8: the training loop ran `run_G(...)`, a
    closure calling `G.module.mapping(...)` and `G.module.synthesis(...)`: no gradient
    averaged, each rank its own model, no DP108): a call of it in a loop that trains (not
    one elsewhere in a function that trains: a set-up step). Three calls deep at most."""
    node = parent(call)
    while node is not None:
        if isinstance(node, cst.With) and any(
            qualified_names(item.item.func if isinstance(item.item, cst.Call) else item.item)
            & NO_GRAD
            for item in node.items
        ):
            return False
        trains = (
            isinstance(node, (cst.For, cst.While))
            and loop_trains(node, qualified_names)
            or isinstance(node, cst.FunctionDef)
            and not depth  # a caller's step is its training loop, not all it runs
            and function_trains(node, qualified_names)
        )
        if trains:
            assert isinstance(node, (cst.For, cst.While, cst.FunctionDef))
            return not any(
                isinstance(n, cst.Call)
                and isinstance(n.func, cst.Name)
                and n.func.value == _AVERAGED
                for n in walk(node.body)
            )
        if isinstance(node, cst.FunctionDef) and flow is not None and depth < 3:
            function = flow.functions.get(node)
            sites = flow.call_sites(function) if function is not None else []
            return any(
                _in_step(site, parent, qualified_names, flow, depth + 1)
                for site in sites
                if not _inside(site, node, parent)
            )
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return False
        node = parent(node)
    return False


def _inside(node: cst.CSTNode, function: cst.FunctionDef, parent: Parent) -> bool:
    """`node` lies in `function` (a recursive call is no caller)."""
    above = parent(node)
    while above is not None and above is not function:
        above = parent(above)
    return above is function
