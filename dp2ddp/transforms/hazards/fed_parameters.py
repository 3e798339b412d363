"""A function's parameters that its calls hand a wrapped model's output (DP040's reach).

Round 23, joshr17/HCL@7b4647f: the contrastive loss is a module-level function named
`criterion(out_1, out_2, batch_size)`, not a name that says loss, and its negatives are
`torch.mm(out, out.t())` of `out = torch.cat([out_1, out_2])`. DataParallel computed it on
the whole batch's gathered outputs; under DDP each rank's negatives are its own part. The
comparison was read only where its names were bound from a model's call in the same scope
(hazards/pairs.py `_inline_pairs`), or in a function named for a loss; a parameter the
training loop hands `F.normalize(net(x))` is now such a name too, whatever the function's
name: read on the def-use view's call sites (analysis/handed_parameters.handed), the model
a wrap as spelled or the caller's own parameter that its callers hand a wrap.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import libcst as cst

from dp2ddp.flow import DefUse, view
from dp2ddp.flow.origins import argument_for
from dp2ddp.transforms._support.base import MigrationTransform
from dp2ddp.transforms._support.names import DATAPARALLEL, DISTRIBUTED_DATA_PARALLEL
from dp2ddp.transforms._support.nodes import module_of, walk
from dp2ddp.transforms.analysis.handed_parameters import handed, wraps

_WRAPS = DATAPARALLEL | DISTRIBUTED_DATA_PARALLEL


def fed_parameters(
    function: cst.FunctionDef, transform: MigrationTransform, wrapped: set[str]
) -> frozenset[str]:
    """The parameters of `function` some call of it in this module hands a value that reads
    a wrapped model's call (`out_1` bound from `F.normalize(net(xb))`, `net` a wrap or the
    caller's parameter handed one); `wrapped`: the module's wrapped names as spelled."""

    def is_wrap(node: cst.CSTNode) -> bool:
        return isinstance(node, cst.Call) and bool(transform.qualified_names(node.func) & _WRAPS)

    models: dict[int, set[str]] = {}  # id of a caller's function -> its wrapped callables

    def callables(value: cst.CSTNode) -> set[str]:
        flow = view(module_of(value, transform))  # type: ignore[arg-type]
        around = flow.function_around(value)
        caller = around.node if around is not None else None
        if not isinstance(caller, cst.FunctionDef):
            return wrapped
        if id(caller) not in models:
            params = [*caller.params.params, *caller.params.kwonly_params]
            models[id(caller)] = wrapped | {
                p.name.value
                for p in params
                if any(v is not None and wraps(v, is_wrap) for v in handed(p, transform, wrapped))
            }
        return models[id(caller)]

    def in_forward(value: cst.CSTNode) -> bool:  # a partial wrap's holder: DP115's
        around = view(module_of(value, transform)).function_around(value)  # type: ignore[arg-type]
        return around is not None and around.owner is not None and around.name == "forward"

    flow = view(module_of(function, transform))  # type: ignore[arg-type]
    defined = flow.functions.get(function)
    sites = flow.call_sites(defined) if defined is not None else []
    found: set[str] = set()
    for param in [*function.params.params, *function.params.kwonly_params]:
        values = [
            v for v in handed(param, transform, wrapped) if v is not None and not in_forward(v)
        ]
        if any(_reads_model(v, callables(v), transform.code) for v in values):
            found.add(param.name.value)
            continue
        for site in sites:  # an unpacked binding (`feature, out = net(x)`): the caller's names
            argument = argument_for(site, defined, param) if defined is not None else None
            if argument is None or in_forward(site):
                continue
            fed = _fed_in_scope(flow, site, callables(site), transform.code)
            if any(isinstance(n, cst.Name) and n.value in fed for n in walk(argument)):
                found.add(param.name.value)
                break
    return frozenset(found)


def _fed_in_scope(
    flow: DefUse, site: cst.CSTNode, models: set[str], code: Callable[[cst.CSTNode], str]
) -> set[str]:
    """The names the scope around `site` binds, unpacked or not, from a call of `models` or
    from names so bound (fed_names over the scope's statements)."""
    around = flow.function_around(site)
    scope: cst.CSTNode = around.node if around is not None else flow.module
    return fed_names(list(walk(scope, skip_scopes=True)), lambda call: code(call.func) in models)


def fed_names(
    nodes: list[cst.CSTNode], is_wrap: Callable[[cst.Call], bool], seed: Iterable[str] = ()
) -> set[str]:
    """Names a scope (its `nodes`) binds, unpacked or not, from a wrapped model's output (a
    call `is_wrap` accepts) or from `seed`, to a fixed point: the one reading of "fed" for
    hazards/pairs.py's comparisons and this module's call sites."""
    fed: set[str] = set(seed)
    assigns = [n for n in nodes if isinstance(n, cst.Assign)]
    changed = True
    while changed:
        changed = False
        for node in assigns:
            if not reads_output(node.value, is_wrap, fed):
                continue
            for target in node.targets:
                for name in walk(target.target):
                    if isinstance(name, cst.Name) and name.value not in fed:
                        fed.add(name.value)
                        changed = True
    return fed


def reads_output(expr: cst.CSTNode, is_wrap: Callable[[cst.Call], bool], fed: set[str]) -> bool:
    """`expr` reads a wrapped model's call or a name bound from one."""
    return any(
        (isinstance(n, cst.Call) and is_wrap(n)) or (isinstance(n, cst.Name) and n.value in fed)
        for n in walk(expr, skip_scopes=True)
    )


def _reads_model(value: cst.CSTNode, models: set[str], code: Callable[[cst.CSTNode], str]) -> bool:
    return any(
        isinstance(node, cst.Call) and code(node.func) in models
        for node in walk(value, skip_scopes=True)
    )
