"""Noise a function of the module draws for the batch it is given: `def dsm_loss(model,
samples, ...): torch.randn_like(samples)` (ermongroup/ncsn@7f27f4a), called in loops over
loaders with their batch (HelperNoise); since stop 67 also a method of a class of the module
called on an instance of it (`trainer.update(x)`, the receiver's origins proved that class's
instances: another object's `optimizer.step()` is no call of a `step` method). Moved out
of batch_noise.py at stop 55 (its length); the shared_draws pass draws such noise as the
global batch's rows, hazards leaves it DP006's question only where a call's loader is not
sharded."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import libcst as cst

from dp2ddp.flow import DefUse, origins, view
from dp2ddp.flow.called import closures_of
from dp2ddp.flow.defuse import Function
from dp2ddp.transforms._support.nodes import nodes_of, target_names, walk
from dp2ddp.transforms.analysis.batch_noise import (
    batch_of_size,
    first_dimension,
    like_argument,
    loops_over,
)
from dp2ddp.transforms.analysis.torch_generators import (
    batch_sized,
    given_generator,
    writes_out,
)


@dataclass
class HelperNoise:
    """A module-level function whose every draw is sized by a batch it is given
    (`def dsm_loss(model, samples, ...): torch.randn_like(samples)`, ermongroup/ncsn@7f27f4a),
    and whose every use is a call in a loop over a loader passing that loop's batch for it."""

    function: cst.FunctionDef
    #: the draws, each sized by a parameter
    draws: list[cst.Call]
    #: the calls of the function: each in a loop over a loader, given that loop's batch
    sites: dict[cst.Call, cst.For]

    def unsharded(self, sharded: dict[str, str]) -> list[cst.Call]:
        """The calls whose loop goes through none of the `sharded` loaders."""
        return [c for c, loop in self.sites.items() if loops_over(loop, sharded) is None]


def helper_noise(
    module: cst.Module,
    qualified_names: Callable[[cst.CSTNode], set[str]],
    parent: Callable[[cst.CSTNode], cst.CSTNode | None],
    loaders: dict[str, str],
    draws: frozenset[str],
    alike: bool = False,
) -> list[HelperNoise]:
    """The module's functions (and methods of its classes, by a name no other function or
    method has) whose draws are noise for the batch they are given, drawn as DataParallel
    drew it once every call site's loop is sharded (HelperNoise). A function
    with any other draw, a parameter it rebinds, a use that is not a call, or a call given
    something else than a batch of its loop is not one (DP006 at its calls stays). `alike`:
    the module's generators are alike on every rank (torch_generators.generators_alike)."""
    if not loaders:
        return []
    functions = {
        s.name.value: s for s in module.body if isinstance(s, cst.FunctionDef) and not s.decorators
    }
    # a method of a class of the module, called on an instance (`gan.step(x)`: round 20 of
    # issue 28, facebookresearch/pytorch_GAN_zoo's BaseGAN): its parameters after `self`,
    # its calls any `<x>.step(...)`, where no other function or method has the name
    methods: dict[str, list[tuple[cst.FunctionDef, cst.ClassDef]]] = {}
    for statement in module.body:
        if isinstance(statement, cst.ClassDef) and isinstance(statement.body, cst.IndentedBlock):
            for inner in statement.body.body:
                if isinstance(inner, cst.FunctionDef) and not inner.decorators:
                    methods.setdefault(inner.name.value, []).append((inner, statement))
    candidates: dict[str, tuple[cst.FunctionDef, list[str], dict[cst.Call, str]]] = {}
    for name, function in functions.items():
        params = [p.name.value for p in function.params.params]
        if function.params.star_arg is not cst.MaybeSentinel.DEFAULT or not params:
            continue
        sized = _param_draws(function, params, qualified_names, draws, alike)
        if sized:
            candidates[name] = (function, params, sized)
    owners: dict[str, cst.ClassDef] = {}  # a method's name -> its class
    for name, defined in methods.items():
        if len(defined) != 1 or name in functions or name.startswith("__"):
            continue
        function, owner = defined[0]
        params = [p.name.value for p in function.params.params][1:]
        if function.params.star_arg is not cst.MaybeSentinel.DEFAULT or not params:
            continue
        sized = _param_draws(function, params, qualified_names, draws, alike)
        if sized:
            candidates[name] = (function, params, sized)
            owners[name] = owner
    closures = returned_closures(module)
    if not candidates and not closures:
        return []  # the module is walked for uses only when a function may be one
    uses: dict[str, list[cst.Name]] = {}
    for node in nodes_of(module, cst.Name):
        if node.value in candidates:
            uses.setdefault(node.value, []).append(node)
    found: list[HelperNoise] = []
    for name, (function, params, sized) in candidates.items():
        sites: dict[cst.Call, cst.For] = {}
        for use in uses.get(name, []):
            if use is function.name:
                continue
            call = parent(use)
            if name in owners:  # a method's use: `gan.step`, its receiver an instance
                if not isinstance(call, cst.Attribute) or call.attr is not use:
                    break
                if not _instance_of(call.value, owners[name], module):
                    continue  # another object's `step` (`optimizer.step()`)
                use, call = call, parent(call)  # type: ignore[assignment]
            if not isinstance(call, cst.Call) or call.func is not use:
                break
            loop = _batch_loop(call, function, sized, params, parent, loaders)
            if loop is None:
                break
            sites[call] = loop
        else:
            if sites:
                found.append(HelperNoise(function, list(sized), sites))
    for function, calls in closures.items():
        params = [p.name.value for p in function.params.params]
        if function.params.star_arg is not cst.MaybeSentinel.DEFAULT or not params:
            continue
        sized = _param_draws(function, params, qualified_names, draws, alike)
        loops = {c: _batch_loop(c, function, sized, params, parent, loaders) for c in calls}
        if sized and calls and all(loops.values()):
            found.append(HelperNoise(function, list(sized), cast(dict[cst.Call, cst.For], loops)))
    return found


def returned_closures(module: cst.Module) -> dict[cst.FunctionDef, list[cst.Call]]:
    """A function a module-level factory defines and returns (`def get_loss_fn(sigma): def
    loss_fn(model, x): ...; return loss_fn`, harryjo97/GDSS@24cc490 losses.py) -> its calls,
    where the def-use view sees every one: each call of the factory binds its result to a
    name (`loss_fn = get_loss_fn(1.0)`) used only as the callee of calls that the view
    resolves to the closure (flow/called.returned_functions), and the factory uses the
    closure's name only to return it. A closure handed on (`Trainer(loss_fn)`) is not one."""
    flow = view(module)
    found: dict[cst.FunctionDef, list[cst.Call]] = {}
    for statement in module.body:
        if not isinstance(statement, cst.FunctionDef) or statement.decorators:
            continue
        factory = flow.functions.get(statement)
        if factory is None or not factory.returns:
            continue
        for closure in closures_of(flow, factory) or []:
            sites = _closure_sites(flow, closure, factory)
            if sites is not None and isinstance(closure.node, cst.FunctionDef):
                found[closure.node] = sites
    return found


def _closure_sites(flow: DefUse, closure: Function, factory: Function) -> list[cst.Call] | None:
    """The calls of `closure` (returned by `factory`), or None where some use of either is
    not one the view follows (returned_closures)."""
    assert isinstance(factory.node, cst.FunctionDef)
    if any(
        not isinstance(flow.parent(use), cst.Return)
        for use in flow.uses(factory.node, closure.name)
    ):
        return None
    sites: list[cst.Call] = []
    for use in flow.uses(flow.module, factory.name):
        made = flow.parent(use)
        assign = flow.parent(made) if isinstance(made, cst.Call) else None
        if (
            not isinstance(made, cst.Call)
            or made.func is not use
            or not isinstance(assign, cst.Assign)
            or len(assign.targets) != 1
            or not isinstance(assign.targets[0].target, cst.Name)
        ):
            return None
        bound = assign.targets[0].target
        for called in flow.uses(flow.scope_of(bound), bound.value):
            call = flow.parent(called)
            if not isinstance(call, cst.Call) or call.func is not called:
                return None
            if closure not in flow.callees(call):
                return None
            sites.append(call)
    return sites


def _instance_of(receiver: cst.BaseExpression, owner: cst.ClassDef, module: cst.Module) -> bool:
    """Every origin of `receiver` (flow.origins) is an instance of the class `owner` builds
    (`gan = GAN()`), or `self` in a method of it."""
    flow = view(module)
    found = [o for o in origins(flow, receiver) if not o.selects]
    return bool(found) and all(
        o.kind == "instance"
        and isinstance(o.node, cst.Call)
        and flow.class_called(o.node) is owner
        or o.kind == "parameter"
        and isinstance(o.node, cst.Param)
        and o.node.name.value == "self"
        and any(a is owner for a in flow.ancestors(o.node))
        for o in found
    )


def _param_draws(
    function: cst.FunctionDef,
    params: list[str],
    qualified_names: Callable[[cst.CSTNode], set[str]],
    draws: frozenset[str],
    alike: bool,
) -> dict[cst.Call, str]:
    """Every draw of the function -> the parameter it is sized by; empty when any draw is
    not sized by one, or a parameter it is sized by is rebound in the function. A draw given
    a generator is one only where the generator is alike on every rank (`alike`,
    torch_generators.py) and the draw's size follows a parameter; else it is left out."""
    sized: dict[cst.Call, str] = {}
    bound: set[str] = set()
    for node in walk(function.body):
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            return {}  # nested scopes: not followed
        if isinstance(node, cst.AssignTarget | cst.AugAssign) and isinstance(node.target, cst.Name):
            bound.add(node.target.value)
        if not isinstance(node, cst.Call):
            continue
        names = qualified_names(node.func)
        if not names & draws:
            continue
        if given_generator(node) is not None:
            if not alike or not batch_sized(node, function.body, params):
                continue  # its own stream, or not sized by the batch: as DataParallel drew
            if writes_out(node):
                return {}  # into the caller's tensor: not rewritten (DP006 at its calls)
        like = like_argument(node, names)
        first = first_dimension(node, names) if like is None else None
        param = None
        if isinstance(like, cst.Name) and like.value in params:
            param = like.value
        elif first is not None:
            param = batch_of_size(first)
        if param is None or param not in params:
            return {}
        sized[node] = param
    if any(p in bound for p in sized.values()):
        return {}
    return sized


def _batch_loop(
    call: cst.Call,
    function: cst.FunctionDef,
    sized: dict[cst.Call, str],
    params: list[str],
    parent: Callable[[cst.CSTNode], cst.CSTNode | None],
    loaders: dict[str, str],
) -> cst.For | None:
    """The loop over one of `loaders` around `call` (in its function) whose target binds
    every argument the function's draws are sized by; None where there is none."""
    if any(a.star for a in call.args):
        return None
    given: dict[str, cst.BaseExpression] = {}
    for index, arg in enumerate(call.args):
        if arg.keyword is not None:
            given[arg.keyword.value] = arg.value
        elif index < len(params):
            given[params[index]] = arg.value
    current = parent(call)
    while current is not None and not isinstance(current, (cst.FunctionDef, cst.Lambda)):
        if isinstance(current, cst.For) and loops_over(current, loaders) is not None:
            names = target_names(current.target)
            for param in set(sized.values()):
                argument = given.get(param)
                if not isinstance(argument, cst.Name) or argument.value not in names:
                    return None
            return current
        current = parent(current)
    return None
