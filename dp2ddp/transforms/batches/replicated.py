"""A batch DataParallel's scatter did not split: an object it hands every replica whole.

DataParallel's scatter cuts tensors and goes into tuples (named ones too), lists and dicts;
anything else reaches every replica as it is (torch.nn.parallel.scatter_gather: `return
[obj for _ in target_gpus]`). A model given such an object (a graph library's `Data`
holding a whole graph, `out = model(data)`, a loss on `data.y[data.train_mask]`) computed
the whole batch on its first GPU's replica alone, the others' outputs identical: the
update is the whole batch's. Under DDP each rank then computes that same step, and the
averaged gradient is the original's; splitting the targets (or the output) as a batch
would mismatch the sizes on every rank (serenalotreck/multi-omics@629aa47 GCN/gcn.py:41,
stop 54 x2: both ranks crashed "8 vs 4").

The argument is proved such an object by the def-use view, at every binding the model call
reads (through `.to()`, `.cuda()`, `.cpu()` of it):

* a call of a class of this module with no base other than `object` (no tensor, tuple,
  list or dict subclass);
* a value the program calls `.to()` on (no list, tuple or dict has one; a named tuple
  neither) and reads an attribute of that is subscripted or read further
  (`data.y[data.train_mask]`, `data.y.long()`) and is not one of a tensor's properties: no
  tensor has it.

Anything else is not proved and left to the proof (batches/proof.py); so is an argument
unpacked at the call (`model(**batch)`: scatter splits the keyword tensors it becomes).
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.flow import DefUse, code

#: Methods that move an object, returning one of its kind.
_MOVES = frozenset({"to", "cuda", "cpu"})
#: The non-callable attributes of torch.Tensor (torch 2.13): `data.shape[0]` proves nothing.
_TENSOR_PROPERTIES = frozenset(
    "H T data device dtype grad grad_dtype grad_fn imag is_leaf itemsize layout mH mT name "
    "names nbytes ndim output_nr real requires_grad retains_grad shape volatile".split()
)


def replicated(flow: DefUse, value: cst.BaseExpression) -> str | None:
    """Why DataParallel's scatter handed every replica `value` whole (see the module
    docstring), else None."""
    if not isinstance(value, cst.Name):
        return None
    definitions = flow.reaching(value)
    reasons: list[str] = []
    for definition in definitions:
        bound = definition.value
        if definition.kind != "assign" or definition.element or bound is None:
            return None
        moved = False
        while (
            isinstance(bound, cst.Call)
            and isinstance(bound.func, cst.Attribute)
            and bound.func.attr.value in _MOVES
        ):
            moved = moved or bound.func.attr.value == "to"
            bound = bound.func.value
        reason = _own_class(flow, bound) or (
            _attribute_read(flow, definition.target, value.value) if moved else None
        )
        if reason is None:
            return None
        reasons.append(reason)
    return reasons[0] if reasons else None


def _own_class(flow: DefUse, bound: cst.BaseExpression) -> str | None:
    if not isinstance(bound, cst.Call):
        return None
    built = flow.class_called(bound)
    if built is None or any(code(b.value) != "object" for b in built.bases):
        return None
    return f"{code(bound)} builds an object of this module's class {built.name.value}"


def _attribute_read(flow: DefUse, target: cst.CSTNode, name: str) -> str | None:
    """`name.attr[...]` or `name.attr.m` read where `target` binds it, attr no tensor
    property."""
    for use in flow.uses(flow.scope_of(target), name):
        read = flow.parent(use)
        if (
            not isinstance(read, cst.Attribute)
            or read.value is not use
            or read.attr.value.startswith(("_", "is_"))
            or read.attr.value in _TENSOR_PROPERTIES
        ):
            continue
        outer = flow.parent(read)
        if (isinstance(outer, cst.Subscript) and outer.value is read) or (
            isinstance(outer, cst.Attribute) and outer.value is read
        ):
            return (
                f"the program calls `.to()` on {name}, which no list, tuple or dict has, "
                f"and reads {code(outer)}, which no tensor has"
            )
    return None
