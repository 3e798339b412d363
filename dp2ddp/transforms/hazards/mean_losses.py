"""Means over a count that depends on the data (DP043).

`CrossEntropyLoss(ignore_index=255)` (VainF/DeepLabV3Plus-Pytorch's segmentation loss) and
`weight=` class weights on CrossEntropyLoss / NLLLoss (and its deprecated alias NLLLoss2d) /
F.cross_entropy / F.nll_loss / LinearCrossEntropyLoss / F.linear_cross_entropy divide
their sum by the batch's count of targets not ignored, or by the sum of its targets' class
weights. DataParallel computed the loss once, on the gathered outputs: one mean over the
whole batch. Under DDP each rank divides by its own part's count and DDP averages the ranks
equally, so where the ranks' counts differ every sample is weighted differently. Only a mean
reduction (the default, `reduction='mean'`, `size_average=True`): a sum is DP004's, `'none'`
has no denominator.

Found like DP004's summed losses (hazards.losses): a loss object built in this module is
warned at its argument when a call of the name it is bound to may reach backward() (not
only evaluated), or when this module never calls it (it is called elsewhere: a criterion
built in one module, used by another's training loop); a functional call when it may reach
backward(); a call through a name of the program's own (`loss_fn(out, y, ignore_index=255)`,
a loss function chosen at run time) when it passes `ignore_index=`, the module defines
no function of that name (whose own loss is checked where it is written), and its value
reaches a `.backward()` of the module (flow.origins: proved a loss, not by the keyword).
A mean over rows the data may decide, and a loss divided by a count handed in, are
hazards.data_rows' (DP137, DP136), called from here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import libcst as cst
from libcst.metadata import PositionProvider

from dp2ddp.flow import origins, view
from dp2ddp.transforms._support.base import MigrationTransform
from dp2ddp.transforms._support.nodes import (
    enclosing_function,
    is_none,
    name_of,
    nodes_of,
    parsed_or_none,
    walk,
)
from dp2ddp.transforms._support.visiting import read_tree
from dp2ddp.transforms.hazards.chosen_reductions import chosen_reduction, is_torch_loss
from dp2ddp.transforms.hazards.data_rows import DataRows
from dp2ddp.transforms.hazards.fixed_rows import no_batch_rows
from dp2ddp.transforms.hazards.loss_bindings import loss_key
from dp2ddp.transforms.hazards.losses import LossChecks, string_value

#: By their last name under torch.nn (`torch.nn.modules.loss.NLLLoss` too). NLLLoss2d: the
#: deprecated alias of NLLLoss torch still has (fyu/drn@d75db2e's
#: `nn.NLLLoss2d(ignore_index=255)` was missed).
_CLASSES = frozenset({"CrossEntropyLoss", "NLLLoss", "NLLLoss2d"})
#: The keywords of a loss's two tensors.
_ROLES = ("input", "target")
_FUNCTIONS = frozenset({"torch.nn.functional.cross_entropy", "torch.nn.functional.nll_loss"})
#: The fused linear layer and cross entropy (torch 2.13): `weight=` and `ignore_index=`
#: keyword-only, so no position names them.
_LINEAR_CLASS = "LinearCrossEntropyLoss"
_LINEAR_FUNCTION = "torch.nn.functional.linear_cross_entropy"
_KEYWORD_POSITIONS = {"weight": -1, "ignore_index": -1, "reduction": -1}
#: Positions of the arguments that matter, in the classes' and the functions' signatures.
_CLASS_POSITIONS = {"weight": 0, "size_average": 1, "ignore_index": 2, "reduce": 3, "reduction": 4}
_FUNCTION_POSITIONS = {
    "weight": 2,
    "size_average": 3,
    "ignore_index": 4,
    "reduce": 5,
    "reduction": 6,
}
#: A module naming none of these has no loss DP043 is about (a positional class weight,
#: `nn.CrossEntropyLoss(w)`, still names the class, also in an aliased import).
_GATE = ("CrossEntropyLoss", "NLLLoss", "cross_entropy", "nll_loss", "ignore_index")
_WHAT = {
    "ignore_index": "its own targets not ignored",
    "weight": "its own targets' class weights",
}


def _arguments(call: cst.Call, positions: dict[str, int]) -> dict[str, cst.Arg] | None:
    """The call's arguments by parameter name; None where `*args`/`**kwargs` hide some."""
    by_index = {index: name for name, index in positions.items()}
    found: dict[str, cst.Arg] = {}
    positional = 0
    for arg in call.args:
        if arg.star:
            return None
        if arg.keyword is not None:
            found[arg.keyword.value] = arg
            continue
        name = by_index.get(positional)
        if name is not None:
            found[name] = arg
        positional += 1
    return found


def data_dependent_mean(
    call: cst.Call,
    positions: dict[str, int],
    mean: Callable[[cst.BaseExpression], bool] | None = None,
) -> tuple[cst.Arg, str] | None:
    """(the argument, what each rank divides by) when `call`, a CrossEntropyLoss/NLLLoss
    construction or a cross_entropy/nll_loss call, averages over a count the data decides.
    `mean`: whether a reduction given by a value is proved 'mean' (a loss class's
    `reduction='mean'` parameter handed on: round 20 of issue 28)."""
    args = _arguments(call, positions)
    if args is None:
        return None
    reduction = args.get("reduction")
    if (
        reduction is not None
        and string_value(reduction.value) != "mean"
        and not (mean is not None and mean(reduction.value))
    ):
        return None  # 'sum' (DP004), 'none', or not known
    for legacy in ("size_average", "reduce"):
        given = args.get(legacy)
        if given is not None and not (
            isinstance(given.value, cst.Name) and given.value.value in ("True", "None")
        ):
            return None
    for name in ("ignore_index", "weight"):
        arg = args.get(name)
        if arg is not None and not is_none(arg.value):
            return arg, _WHAT[name]
    return None


def mean_loss_kind(names: Iterable[str]) -> tuple[bool, dict[str, int]] | None:
    """(whether it is a class, built once and called later; the positions of its
    arguments) for a torch loss whose mean may depend on the data, or None."""
    names = set(names)
    if names & _FUNCTIONS:
        return False, _FUNCTION_POSITIONS
    if _LINEAR_FUNCTION in names:
        return False, _KEYWORD_POSITIONS
    for name in names:
        if name.startswith("torch.nn."):
            last = name.rsplit(".", 1)[-1]
            if last in _CLASSES:
                return True, _CLASS_POSITIONS
            if last == _LINEAR_CLASS:
                return True, _KEYWORD_POSITIONS
    return None


class MeanLosses:
    """DP043 for FlagHazards, beside its LossChecks (whose scopes say what may train), and
    DP121 (hazards.chosen_reductions): a torch loss's reduction given by a value."""

    def __init__(self, transform: MigrationTransform, losses: LossChecks) -> None:
        self.t = transform
        self.losses = losses
        #: Loss objects built with such a mean: name -> [(the function that builds it,
        #: argument, description)].
        self._built: dict[str, list[tuple[cst.FunctionDef | None, cst.Arg, str]]] = {}
        self._warned: set[cst.Arg] = set()
        self._functions: set[str] = set()
        self._active = True
        self._module: cst.Module | None = None
        self._trained: set[cst.CSTNode] | None = None
        #: DP137 and DP136 (hazards.data_rows)
        self._rows = DataRows(transform, losses)

    def enter_module(self, node: cst.Module) -> None:
        self._module, self._trained = node, None
        self._rows.enter_module(node)
        text = self.t.state.text
        self._active = not text or any(name in text for name in _GATE)
        if not self._active:  # names no such loss, not even in an aliased import
            return
        found = _Constructions(self.t.qualified_names, lambda value: _proved_mean(node, value))
        read_tree(node, found)
        self._functions = found.functions
        for call, (arg, what) in found.constructions:
            parent = self.t.parent(call)
            target: cst.BaseExpression | None = None
            if isinstance(parent, cst.Assign) and len(parent.targets) == 1:
                target = parent.targets[0].target
            elif isinstance(parent, cst.AnnAssign):
                target = parent.target
            key = loss_key(target) if target is not None else ""
            if key and key in found.called:
                self._built.setdefault(key, []).append(
                    (enclosing_function(call, self.t), arg, self._detail(call, arg, what))
                )
            else:  # returned, passed on, or called in another module
                self._warn(arg, self._detail(call, arg, what))

    def check_call(self, node: cst.Call, names: set[str]) -> None:
        self._rows.check_call(node)
        if (
            self._module is not None
            and is_torch_loss(names)
            and any(a.keyword is not None or a.star == "**" for a in node.args)
            and self.losses.feeds_backward(node)
        ):
            hints = self.t.state.hints
            chosen = chosen_reduction(view(self._module), node, hints.imported, hints.home_classes)
            if chosen is not None:
                self.t.warn(chosen[0], "DP121", chosen[1])
        if not self._active:
            return
        built = self._built.get(loss_key(node.func), [])
        if built and self.losses.feeds_backward(node) and not self._no_batch(node):
            for arg, detail in self._bound(node, built):
                self._warn(arg, detail)
        kind = mean_loss_kind(names)
        if kind is not None and not kind[0]:
            found = data_dependent_mean(node, kind[1])
            if found is not None and self.losses.feeds_backward(node):
                if not self._no_batch(node):
                    self._warn(found[0], self._detail(node, *found))
        elif kind is None and not any(n.startswith("torch.") for n in names):
            self._check_own_name(node)

    def _no_batch(self, call: cst.Call) -> bool:
        """Neither the loss's input nor its targets are rows of the batch (fixed_rows.py):
        its count is the same on every rank, DataParallel's (stop 53 s4, FRAGE)."""
        assert self._module is not None
        values = [a.value for a in call.args[:2] if a.keyword is None and not a.star]
        values += [a.value for a in call.args if a.keyword and a.keyword.value in _ROLES]
        defs = view(self._module)
        return len(values) == 2 and all(no_batch_rows(defs, v) for v in values)

    def _bound(
        self, node: cst.Call, built: list[tuple[cst.FunctionDef | None, cst.Arg, str]]
    ) -> list[tuple[cst.Arg, str]]:
        """The constructions a call of a name may be calling: for a plain name, the ones
        of its function, else the module-level ones, else any (passed in as a parameter);
        for an attribute (`self.criterion`), any."""
        if isinstance(node.func, cst.Name):
            function = enclosing_function(node, self.t)
            for scope in (function, None) if function is not None else (None,):
                here = [(arg, detail) for where, arg, detail in built if where is scope]
                if here:
                    return here
        return [(arg, detail) for _, arg, detail in built]

    def _check_own_name(self, node: cst.Call) -> None:
        """`loss_fn(out, y, ignore_index=255)`: a loss function of the program's choosing
        (not a class, not a function this module defines and so checks where it is)."""
        name = name_of(node.func)
        if not name or name[:1].isupper() or name in self._functions:
            return
        ignore = next(
            (a for a in node.args if a.keyword is not None and a.keyword.value == "ignore_index"),
            None,
        )
        if ignore is None or is_none(ignore.value):
            return
        reduction = next(
            (a for a in node.args if a.keyword is not None and a.keyword.value == "reduction"),
            None,
        )
        if reduction is not None and string_value(reduction.value) != "mean":
            return
        if self.losses.feeds_backward(node) and node in self._trained_calls():
            self._warn(ignore, self._detail(node, ignore, _WHAT["ignore_index"]))

    def _trained_calls(self) -> set[cst.CSTNode]:
        """The calls whose value reaches a `.backward()` of this module (through the def-use
        view: flow.origins of each backward receiver), once per module: a call of the
        program's own name is a loss only so, not by an `ignore_index=` keyword
        (lee-zq/3DUNet-Pytorch@a7ca745's pandas `DataFrame.append(tmp, ignore_index=True)`
        and `pd.concat(..., ignore_index=True)` drew DP043)."""
        if self._trained is None:
            self._trained = set()
            assert self._module is not None
            flow = view(self._module)
            for call in flow.calls:
                func = call.func
                if isinstance(func, cst.Attribute) and func.attr.value == "backward":
                    for origin in origins(flow, func.value):
                        if not origin.selects:
                            self._trained.add(origin.node)
                            self._trained.update(s.node for s in origin.path)
        return self._trained

    def _detail(self, call: cst.Call, arg: cst.Arg, what: str) -> str:
        value = self.t.code(arg.value)
        name = "ignore_index" if what == _WHAT["ignore_index"] else "weight"
        shown = f"{arg.keyword.value if arg.keyword else name}={value}"
        return (
            f"{self.t.code(call.func)}({shown}): each rank averages over {what}, "
            "DataParallel over the whole batch's"
        )

    def _warn(self, arg: cst.Arg, detail: str) -> None:
        if arg not in self._warned:
            self._warned.add(arg)
            self.t.warn(arg, "DP043", detail)


class _Constructions(cst.CSTVisitor):
    """Pre-pass: the loss objects built with such a mean, the names the module calls, and
    the functions it defines."""

    def __init__(
        self,
        qualified_names: Callable[[cst.CSTNode], set[str]],
        mean: Callable[[cst.BaseExpression], bool],
    ) -> None:
        super().__init__()
        self._names = qualified_names
        self._mean = mean
        self.constructions: list[tuple[cst.Call, tuple[cst.Arg, str]]] = []
        self.called: set[str] = set()
        self.functions: set[str] = set()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.add(node.name.value)

    def visit_Call(self, node: cst.Call) -> None:
        key = loss_key(node.func)
        if key:
            self.called.add(key)
        kind = mean_loss_kind(self._names(node.func))
        if kind is not None and kind[0]:
            found = data_dependent_mean(node, kind[1], self._mean)
            if found is not None:
                self.constructions.append((node, found))


def _proved_mean(module: cst.Module, value: cst.BaseExpression) -> bool:
    """Every value `value` may hold is the literal 'mean' (flow.origins: a parameter's
    default, what each caller passes)."""
    if not isinstance(value, (cst.Name, cst.Attribute)):
        return False
    found = origins(view(module), value)
    return bool(found) and all(
        o.kind == "constant" and string_value(o.node) == "mean"  # type: ignore[arg-type]
        for o in found
        if not o.selects
    )


_MAY_MATCH = ("CrossEntropyLoss", "NLLLoss", "cross_entropy", "nll_loss")


def mean_loss_sites(source: str) -> list[tuple[int, str]]:
    """(line, call) of each loss of `source` averaging over a count the data decides, by
    the callee's last name (verify names them when a migration's updates differ); nothing
    for a file that does not parse."""
    if not (
        ("ignore_index" in source or "weight" in source)
        and any(name in source for name in _MAY_MATCH)
    ):
        return []
    module = parsed_or_none(source)
    if module is None:
        return []
    wrapper = cst.MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    found: list[tuple[int, str]] = []
    renamed = _renamed(wrapper.module)
    for node in walk(wrapper.module):
        if not isinstance(node, cst.Call):
            continue
        name = name_of(node.func)
        last = renamed.get(name, name) if isinstance(node.func, cst.Name) else name
        kind = (
            _CLASS_POSITIONS
            if last in _CLASSES
            else _FUNCTION_POSITIONS
            if last in ("cross_entropy", "nll_loss")
            else _KEYWORD_POSITIONS
            if last in (_LINEAR_CLASS, "linear_cross_entropy")
            else None
        )
        found_arg = data_dependent_mean(node, kind) if kind is not None else None
        if found_arg is not None:  # at the argument's line, where DP043 points
            text = " ".join(module.code_for_node(node).split())
            found.append((positions[found_arg[0]].start.line, text))
    return found


def _renamed(module: cst.Module) -> dict[str, str]:
    """The names a module imports under another name (`from torch.nn import NLLLoss2d as
    SegLoss`): the local name -> the imported one."""
    found: dict[str, str] = {}
    for node in nodes_of(module, cst.ImportFrom):
        if not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    found[alias.asname.name.value] = name_of(alias.name)
    return found
