"""W1 (stop 30, thuml/CDAN@c904cd3): `torch.save(model, path)` of the wrapped model itself.

The original's file held the DataParallel object, which `torch.load` restores in any
process; migrated, it would hold the DistributedDataParallel object, which loads only in a
process group. Where the saved expression is the wrapped name itself and that name is only
ever bound to a DataParallel wrap in the module, the hazards pass saves its `.module` (the
inner model: what the wrapper held, loadable anywhere), as `net.module if cuda else net`
already resolves to `.module` (DP057). A name bound otherwise anywhere (`net = net.module`,
a parameter or loop variable of that name, an unpacking) is not proved to be the wrapper at
the save: `.module` could fail there, so DP070 warns instead, as for containers
(`nn.Sequential(model)`, dicts, lists), whose shape the file's readers may rely on.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from dp2ddp.transforms._support.nodes import code_of, walk

#: Calls that move a module and return it (`DataParallel(net).cuda()`).
_MOVES = frozenset({"cuda", "to", "cpu"})


def only_wrapped(module: cst.Module, held: str, is_wrap: Callable[[cst.Call], bool]) -> bool:
    """Every binding of `held` (`net`, `self.model`) in `module` is a DataParallel call
    (through `.cuda()`/`.to()`), and there is one."""
    bound = False
    root = held.split(".", 1)[0]
    for node in walk(module):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                if code_of(target.target) == held:
                    if not _wraps(node.value, is_wrap, held):
                        return False
                    bound = True
                elif _names(target.target, held):
                    return False  # an unpacking, or a subscript of it
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign)):
            if _names(node.target, held):
                if not (
                    isinstance(node, cst.AnnAssign)
                    and code_of(node.target) == held
                    and node.value is not None
                    and _wraps(node.value, is_wrap, held)
                ):
                    return False
                bound = True
        elif isinstance(node, cst.For) and _names(node.target, held):
            return False
        elif isinstance(node, cst.WithItem) and node.asname and _names(node.asname.name, held):
            return False
        elif isinstance(node, cst.NamedExpr) and _names(node.target, held):
            return False
        elif isinstance(node, cst.Param) and node.name.value == held:
            return False
        elif isinstance(node, cst.ImportAlias) and root == held:
            name = node.asname.name if node.asname else node.name
            if isinstance(name, cst.Name) and name.value == held:
                return False
        elif isinstance(node, (cst.Global, cst.Nonlocal, cst.Del)) and _names(node, held):
            return False
    return bound


def _names(node: cst.CSTNode, held: str) -> bool:
    return any(isinstance(n, (cst.Name, cst.Attribute)) and code_of(n) == held for n in walk(node))


def _wraps(value: cst.BaseExpression, is_wrap: Callable[[cst.Call], bool], held: str) -> bool:
    """A wrap, or the wrapper moved (`net = net.cuda()`: a module's move returns itself)."""
    moved = False
    while (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value in _MOVES
    ):
        value, moved = value.func.value, True
    if moved and isinstance(value, (cst.Name, cst.Attribute)) and code_of(value) == held:
        return True
    return isinstance(value, cst.Call) and is_wrap(value)
