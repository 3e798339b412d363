"""A batch kept on `self` by a method the loop over a sharded loader calls with its batch.

junyanz/BicycleGAN@40b9d52 (stop 45's v2-A): the model's `set_input(data)` keeps the batch
on the object (`self.real_A = input['A'].to(self.device)`), and `is_train()` compares its
size with the option the loader takes its batch_size from (`self.real_A.size(0) ==
self.opt.batch_size`). Migrated, each rank's batch is its share: every batch is "short", the
loop skips them all, exit 0 (DP061 said it since stop 45). Proved here, in one module: the
attribute's every binding in the class keeps a parameter of the method it is bound in (the
parameter itself, an element of it, an item, a move: `self.x, self.y = batch`,
`input['A'].to(device)`); every call of that method in the module passes, at that
parameter, the batch of a loop over a sharded loader (data/size_guards.sharded_loops' loops
with the global sizes of their loaders: the target or a name carrying it); and the compared
number is spelled as those loaders' batch_size: the same text (`opt.batch_size`), or
`self.<h>.<attr>` where every binding of `self.<h>` is an `__init__` parameter that every
construction of the class in the module fills with the name the loader's size reads
(`Trainer(opt)` with `batch_size=opt.batch_size`). Then the compared number is read per rank,
`ddp_per_rank_batch(self.opt.batch_size)`, as the loop's own comparison is. Anything not
followed (another module's loop or class, a call of the method with something else, a
loader left whole, a library module of a program: its setter may be called from others)
stays DP061.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import Function, view
from dp2ddp.flow.carriers import METHODS
from dp2ddp.transforms._support.nodes import walk

if TYPE_CHECKING:
    from dp2ddp.transforms.data import ShardDataLoaders

#: (loop, global batch size texts of its sharded loaders, the names holding its batch)
Loop = tuple[cst.For, set[str], set[str]]


def kept_batch_size(
    data: ShardDataLoaders,
    compare: cst.Comparison,
    tensor: cst.BaseExpression,
    other: cst.BaseExpression,
    loops: Iterable[Loop],
) -> bool:
    """Is `tensor` (`self.real_A`, compared in a method) proved the batch of loops over
    sharded loaders, and `other` spelled as those loaders' batch_size? (module docstring)"""
    program = data.state.program
    if program is not None and program.role == "library":
        return False  # other modules may call the setter with another batch: not followed
    flow = view(data._module_node)
    method = flow.function_around(compare)
    if method is None or method.owner is None or method.self_name is None:
        return False
    if not (
        isinstance(tensor, cst.Attribute)
        and isinstance(tensor.value, cst.Name)
        and tensor.value.value == method.self_name
    ):
        return False
    definitions = flow.attribute_definitions(method.owner, tensor.attr.value)
    if not definitions:
        return False
    sizes: set[str] = set()
    for definition in definitions:
        if isinstance(definition.value, cst.Name) and definition.value.value == "None":
            continue  # a placeholder (`self.x = None` in __init__): no size to read
        setter = flow.function_around(definition.target)
        if setter is None or definition.value is None or definition.kind != "assign":
            return False
        kept = _kept_name(definition.value)
        position = _parameter_position(setter, kept)
        if position is None:
            return False
        sites = flow.call_sites(setter)
        if not sites:
            return False
        for call in sites:
            found = _loop_batch(data, call, position, setter, loops)
            if found is None:
                return False
            sizes |= found
    return bool(sizes) and _spelled_as(data, method, other, sizes)


def tensor_of(size: cst.BaseExpression) -> cst.BaseExpression | None:
    """The tensor whose batch dimension `size` reads: `t` of `t.size(0)`, `t.size()[0]`,
    `t.shape[0]` (size_guards._batch_dimension says that it is one)."""
    if isinstance(size, cst.Call) and isinstance(size.func, cst.Attribute):
        return size.func.value
    if isinstance(size, cst.Subscript):
        inner = size.value
        if isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute):
            return inner.func.value
        if isinstance(inner, cst.Attribute):
            return inner.value
    return None


def _kept_name(value: cst.BaseExpression) -> str | None:
    """The name `value` keeps: `b`, `b[0]`, `b['A'].to(device)`, `b.x`."""
    while True:
        if isinstance(value, cst.Name):
            return value.value
        if isinstance(value, (cst.Subscript, cst.Attribute)):
            value = value.value
        elif (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and value.func.attr.value in METHODS
        ):
            value = value.func.value
        else:
            return None


def _parameter_position(function: Function, name: str | None) -> int | None:
    """The position of parameter `name` among the call's arguments (self not counted)."""
    params = [p.name.value for p in function.params]
    if function.self_name is not None:
        params = params[1:]
    return params.index(name) if name in params else None


def _loop_batch(
    data: ShardDataLoaders, call: cst.Call, position: int, setter: Function, loops: Iterable[Loop]
) -> set[str] | None:
    """The global sizes of the sharded loaders whose loop hands its batch to `call` at
    `position` (a method call `x.set_input(batch)` inside that loop), or None."""
    if not isinstance(call.func, cst.Attribute) or call.func.attr.value != setter.name:
        return None
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if len(positional) <= position or any(a.star for a in call.args):
        return None
    kept = _kept_name(positional[position].value)
    for loop, sizes, batch in loops:
        if sizes and kept in batch and any(n is call for n in walk(loop.body, skip_scopes=True)):
            return sizes
    return None


def _spelled_as(
    data: ShardDataLoaders,
    method: Function,
    other: cst.BaseExpression,
    sizes: set[str],
) -> bool:
    """`other` is every one of `sizes` (the loaders' batch_size texts): the same text, or
    `self.<h>.<attr>` with `self.<h>` the `__init__` parameter every construction of the
    class fills with the name the sizes read (`<name>.<attr>`)."""
    text = data.code(other)
    if {text} == sizes:
        return True
    if not (
        isinstance(other, cst.Attribute)
        and isinstance(other.value, cst.Attribute)
        and isinstance(other.value.value, cst.Name)
        and other.value.value.value == method.self_name
        and len(sizes) == 1
    ):
        return False
    size = next(iter(sizes))
    holder, _, attr = size.rpartition(".")
    if attr != other.attr.value or not holder.isidentifier():
        return False
    defuse = view(data._module_node)
    assert method.owner is not None
    init = defuse.method(method.owner, "__init__")
    definitions = defuse.attribute_definitions(method.owner, other.value.attr.value)
    if init is None or not definitions:
        return False
    for definition in definitions:
        value = definition.value
        if definition.kind != "assign" or not isinstance(value, cst.Name):
            return False
        if defuse.function_around(definition.target) is not init:
            return False
        position = _parameter_position(init, value.value)
        if position is None:
            return False
        built = [c for c in defuse.calls if defuse.class_called(c) is method.owner]
        if not built:
            return False
        for call in built:
            positional = [a for a in call.args if a.keyword is None]
            keyword = [a for a in call.args if a.keyword and a.keyword.value == value.value]
            arg = (
                keyword[0]
                if keyword
                else (positional[position] if len(positional) > position else None)
            )
            if arg is None or arg.star or data.code(arg.value) != holder:
                return False
    return True
