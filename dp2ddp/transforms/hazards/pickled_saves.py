"""DP070's saves (hazards pass): a `torch.save` of an object holding the wrapped model, or a
call of a function that pickles it (pickled.py reads the bindings and the helpers).

A function's body runs when it is called, after the module's statements that bound the
wrap: a save inside a function reads every module-level wrap, also one bound after the
`def` (round 36, castorini/d-bert@d39fe65: `def model_save(fn): torch.save([model,
criterion, optimizer], f)` above `model = nn.DataParallel(model, dim=1)` was neither
rewritten nor said, the pass having met the save before the wrap).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.facts import PickledParam
from dp2ddp.flow import view
from dp2ddp.transforms._support.nodes import enclosing_function, walk, wrap_target
from dp2ddp.transforms.analysis.pickled_params import held_values, module_picklers, whole_parts
from dp2ddp.transforms.analysis.undone_wraps import undone_wraps
from dp2ddp.transforms.hazards.pickled import held_for_save as held_in
from dp2ddp.transforms.hazards.pickled import imported_pickler, only_wrapped, wrap_reaches

if TYPE_CHECKING:
    from dp2ddp.transforms.hazards import FlagHazards

#: Containers a wrapped model may be put in and pickled with (DP070).
_CONTAINERS = frozenset(
    {"torch.nn.Sequential", "torch.nn.ModuleList", "torch.nn.ModuleDict",
     "torch.nn.modules.container.Sequential", "builtins.dict", "builtins.list",
     "builtins.tuple", "collections.OrderedDict"}
)  # fmt: skip


def wraps_later(t: FlagHazards) -> bool:
    """The module wraps a model in a statement of its own code the pass has not met yet
    (module_wraps): a function defined above it may save the wrapper."""
    if t._module is None or t.state.text_count("DataParallel") == 0:
        return False
    if t._module_wraps is None:
        t._module_wraps = module_wraps(t, t._module)
    return bool(t._module_wraps)


def _wrapped_at(t: FlagHazards, node: cst.CSTNode) -> set[str]:
    """The wrapped names a save at `node` reads: those the pass met so far, and inside a
    function also every wrap of a module-level statement (module_wraps)."""
    if not wraps_later(t) or enclosing_function(node, t) is None:
        return t._wrapped
    return t._wrapped | (t._module_wraps or set())


def module_wraps(t: FlagHazards, module: cst.Module) -> set[str]:
    """The names a DataParallel call in a statement of the module's own code (not in a
    function or class) is assigned to."""
    found: set[str] = set()
    for node in walk(module, skip_scopes=True):
        if isinstance(node, cst.Call) and t._is_wrap(node):
            target = wrap_target(node, t)
            if target is not None:
                found.add(target)
    return found


def check_pickled_wrapper(
    t: FlagHazards, save: cst.Call, saved: cst.BaseExpression, through: cst.Name | None = None
) -> None:
    """DP070: the saved object holds a wrapped model (as assigned, `model` or
    `self.model`) itself: that name anywhere in it but as the object of an attribute
    (`model.module`, `model.state_dict()`) or of a call (`model(x)`), or the argument
    of a call that reads it (`model.state_dict` through a helper is not proved: a call
    of a function other than a container's constructor is skipped). Where it is the
    saved object itself, or an element of a plain container saved with it (`{'model':
    model, 'epoch': e}`), and proved the wrapper there (_proved_wrapper), its `.module`
    is saved instead: what the original's DataParallel held, loadable anywhere. A name
    saved is looked into (`held_for_save`; said, as those statements were left before)."""
    if isinstance(saved, cst.Name) and t._module is not None and through is None:
        for value in held_in(view(t._module), saved):
            check_pickled_wrapper(t, save, value, saved)
    parts = set(whole_parts(saved, t.qualified_names))
    for node in walk(saved):
        if (
            not isinstance(node, (cst.Name, cst.Attribute))
            or t.code(node) not in _wrapped_at(t, save)
            or t.code(node) in _undone(t)  # held bare after (DP062; stop 59 v2-C)
        ):
            continue
        parent = t.parent(node)
        if isinstance(parent, cst.Attribute) and (parent.value is node or parent.attr is node):
            # `model.state_dict()` reads the wrapper; the `model` of `t.model` is an
            # attribute's name, not the wrapped local (UDA_pytorch's Trainer, class v1-C)
            continue
        if isinstance(parent, cst.Call) and parent.func is node:
            continue
        if isinstance(parent, cst.IfExp):
            continue  # `m.module if guard else m`: the wrap pass keeps `.module` (DP057)
        if isinstance(parent, cst.Arg):
            call = t.parent(parent)
            if (
                isinstance(call, cst.Call)
                and call is not save
                and not (t.qualified_names(call.func) & _CONTAINERS)
            ):
                continue
        held = t.code(node)
        if node in parts and through is None and _proved_wrapper(t, node):
            if saved is node:
                t._inner_saves.add(save)
            else:
                t._inner_values.add(node)
            t.record(
                node,
                f"torch.save of {held}.module: the file holds the inner model, loadable "
                "without a process group (the DDP object would need one)",
            )
            continue
        holder = t.code(saved)[:60] if through is None else through.value
        where = held if saved is node and through is None else f"{held} in {holder}"
        t.warn(
            save,
            "DP070",
            f"{where}: the file would hold the DDP object, which loads only in a process group",
        )
        return


def _undone(t: FlagHazards) -> set[str]:
    """The wrapped names the program takes back out (`model = model.module`: DP062):
    the bare module after it, so a save of the name pickles no wrapper."""
    if t._undone_helds is None and t._module is not None:
        found = undone_wraps(t._module, t.parent, t._is_wrap)
        t._undone_helds = {undone.held for undone in found}
    return t._undone_helds or set()


def _proved_wrapper(t: FlagHazards, node: cst.BaseExpression) -> bool:
    """`node` (a wrapped name) holds the wrapper where it is read: every binding of it
    in the module is a wrap (only_wrapped), or the one reaching it is (wrap_reaches)."""
    if t._module is None:
        return False
    held = t.code(node)
    if only_wrapped(t._module, held, t._is_wrap):
        return True
    return isinstance(node, cst.Name) and wrap_reaches(node, t.parent, t._is_wrap)


def check_pickling_call(t: FlagHazards, call: cst.Call) -> None:
    """A wrapped model passed to a function that pickles that parameter whole (class
    W2, analysis/pickled_params.py: this module's own top-level functions, or another
    module's from ProgramFacts.pickling): where the function only pickles it (or reads
    its state_dict) and the argument is proved the wrapper, the call passes its
    `.module`, which the file then holds as the original's DataParallel held the same
    weights; else DP070 at the call, naming the function's save."""
    if t._module is None:
        return
    params: tuple[PickledParam, ...] = ()
    function = t.code(call.func)
    if isinstance(call.func, cst.Name):
        if t._own_picklers is None:
            t._own_picklers = module_picklers(
                t._module, t.qualified_names, t.parent, lambda n: t._position(n)[0]
            )
        params = t._own_picklers.get(call.func.value, ())
    if not params and t.state.facts.pickling:
        params = imported_pickler(t.qualified_names(call.func), t.state.facts.picklers)
    if not params:
        return
    for index, arg in enumerate(call.args):
        if arg.star:
            return  # which parameter each later argument meets is not known
        for value in held_values(arg.value):
            _check_pickled_value(t, call, function, params, index, arg, value)


def _check_pickled_value(
    t: FlagHazards,
    call: cst.Call,
    function: str,
    params: tuple[PickledParam, ...],
    index: int,
    arg: cst.Arg,
    value: cst.BaseExpression,
) -> None:
    """_check_pickling_call for one value the argument at `index` holds: itself, or an
    item of a dict, list or tuple literal it is (round 30, fangchangma/sparse-to-dense.
    pytorch@10efc6d: `save_checkpoint({'model': model, ...}, ...)`, the helper saving
    the dict whole: the DDP object pickled in it, unsaid)."""
    if isinstance(value, (cst.Name, cst.Attribute)) and t.code(value) in _wrapped_at(t, call):
        held = t.code(value)
        keyword = arg.keyword.value if arg.keyword is not None else None
        param = next(
            (
                p
                for p in params
                if (p.name == keyword if keyword is not None else p.position == index)
            ),
            None,
        )
        if param is None:
            return
        if param.only and _proved_wrapper(t, value):
            t._inner_values.add(value)
            t.record(
                value,
                f"{function}({held}.module, ...): {function}() pickles {param.name} whole "
                f"at {param.where()}; the file holds the inner model, loadable without a "
                "process group",
            )
            return
        why = (
            f" ({held} is not proved to be the wrapper at this call)"
            if param.only
            else " and does more with it (a use other than pickling it, or a module container)"
        )
        t.warn(
            call,
            "DP070",
            f"{held} passed to {function}() as {param.name}, which pickles it whole at "
            f"{param.where()}{why}: the file would hold the DDP object, which loads only "
            "in a process group",
        )
