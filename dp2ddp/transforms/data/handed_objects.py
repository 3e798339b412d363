"""Running figures kept by a step function the loop hands its objects to, for DP030.

megvii-research/mdistiller@a08d46f (mdistiller/engine/trainer.py): `train_epoch()` makes
`train_meters = {"losses": AverageMeter(), ...}`, and for each batch of its loop calls
`self.train_iter(data, epoch, train_meters)`, which runs the step and feeds the meters,
`train_meters["losses"].update(loss..., batch_size)`; after the loop `train_epoch()` reads
`train_meters["losses"].avg` into the epoch's log. Over a sharded loader the meters hold this
rank's batches only, as a meter fed in the loop itself does (evaluation._running_objects), but
the feeding is in the callee: silent before (rank 0 logged its half's loss as the epoch's).

An object the loop hands to such a function is one of its running objects when:
- the call is in the loop's body and hands it something computed from the batches (a name
  loop_takers.batch_derived binds);
- the callee is a function of this module (`step(...)`) or a method of the class holding the
  loop (`self.train_iter(...)`), its parameters matched to the call's arguments by position
  or keyword;
- the object is a name the loop's function bound before the loop to a call or to a container
  of objects built by calls (figure_containers.container_members: a dict, list or tuple);
- the callee calls a method of the parameter, or of an item of it (`meters["losses"]`), with
  an argument computed from the batch the callee was handed (derived_names from the
  parameters the batch went to): an optimizer's `zero_grad(set_to_none=True)` reads no batch.
A torchmetrics or ignite metric gathers the processes' state itself (left alone, as in the
loop's own body).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.nodes import (
    derived_names,
    enclosing_function,
    method_class,
    variables_under,
    walk,
)
from dp2ddp.transforms.data.figure_containers import container_members

if TYPE_CHECKING:
    from dp2ddp.transforms.data.evaluation import LoaderEvaluation

#: Libraries whose metric objects sum their state over the processes when read.
SYNCING_METRICS = ("torchmetrics.", "ignite.metrics.")


def handed_objects(
    t: LoaderEvaluation, loop: cst.For | cst.While, calls: list[cst.Call], batch: set[str]
) -> set[str]:
    """Names of objects `loop` hands, with its batch, to a step function of this module that
    feeds them the batch's figures (the module docstring). `calls`: the calls with
    arguments in the loop's body (not in the scopes defined there)."""
    found: set[str] = set()
    if not calls:
        return found
    callees = _callees(t, loop)
    for node in calls:
        func = node.func
        if isinstance(func, cst.Name):
            callee = callees.get(func.value)
        elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            callee = callees.get(f"{func.value.value}.{func.attr.value}")
        else:
            continue
        if callee is None:
            continue
        function, skip = callee
        params = [p.name.value for p in function.params.params[skip:]]
        handed: dict[str, str] = {}  # callee parameter -> the loop's name handed to it
        fed: set[str] = set()  # callee parameters handed something from the batch
        for index, arg in enumerate(node.args):
            if arg.star:
                break
            param = arg.keyword.value if arg.keyword is not None else None
            if param is None and index < len(params):
                param = params[index]
            if param is None:
                continue
            if any(n.value in batch for n in variables_under(arg.value)):
                fed.add(param)
            if isinstance(arg.value, cst.Name) and _built_before(t, loop, arg.value.value):
                handed[param] = arg.value.value
        if not fed or not handed:
            continue
        derived = derived_names(function.body, fed)
        for param, name in handed.items():
            if param not in fed and _feeds(function, param, derived):
                found.add(name)
    return found


def _callees(
    t: LoaderEvaluation, loop: cst.For | cst.While
) -> dict[str, tuple[cst.FunctionDef, int]]:
    """What a call in `loop` may run, by how it is spelled, with how many leading parameters
    the call does not fill: this module's top-level functions (`step`: 0), and the methods of
    the class whose method holds `loop`, called on that method's first parameter
    (`self.train_iter`: 1; no decorated ones)."""
    found = {s.name.value: (s, 0) for s in t._module_node.body if isinstance(s, cst.FunctionDef)}
    holder = enclosing_function(loop, t)
    owner = method_class(holder, t) if holder is not None else None
    if holder is None or owner is None or not holder.params.params:
        return found
    own = holder.params.params[0].name.value
    for member in owner.body.body:
        if isinstance(member, cst.FunctionDef) and member.params.params and not member.decorators:
            found[f"{own}.{member.name.value}"] = (member, 1)
    return found


def _built_before(t: LoaderEvaluation, loop: cst.For | cst.While, name: str) -> bool:
    """`name` holds, when the loop starts, an object built by a call or a container of such
    objects (not a torchmetrics or ignite metric: those gather the ranks' state)."""
    value = t._bound_before(loop, name)
    if isinstance(value, cst.Call):
        return not any(n.startswith(SYNCING_METRICS) for n in t.qualified_names(value.func))
    return bool(container_members(value) is not None)


def _feeds(function: cst.FunctionDef, param: str, derived: set[str]) -> bool:
    """`function` calls a method of `param` (or of an item of it) with an argument computed
    from `derived`, and never rebinds `param`."""
    for node in walk(function.body, skip_scopes=True):
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            targets = node.targets if isinstance(node, cst.Assign) else [node]
            for target in targets:
                if isinstance(target.target, cst.Name) and target.target.value == param:
                    return False
    for node in walk(function.body, skip_scopes=True):
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
            continue
        receiver = node.func.value
        if isinstance(receiver, cst.Subscript):
            receiver = receiver.value
        if not (isinstance(receiver, cst.Name) and receiver.value == param):
            continue
        if any(n.value in derived for a in node.args for n in variables_under(a.value)):
            return True
    return False
