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

from collections.abc import Callable, Mapping
from dataclasses import replace

import libcst as cst

from dp2ddp.facts import PickledParam
from dp2ddp.flow import DefUse
from dp2ddp.transforms._support.nodes import code_of, nodes_of, target_names, unmoved, walk
from dp2ddp.transforms._support.qualified import told_matches

#: Calls that move a module and return it (`DataParallel(net).cuda()`).


def only_wrapped(module: cst.Module, held: str, is_wrap: Callable[[cst.Call], bool]) -> bool:
    """Every binding of `held` (`net`, `self.model`) in `module` is a DataParallel call
    (through `.cuda()`/`.to()`), and there is one."""
    bound = False
    root = held.split(".", 1)[0]
    binders: tuple[type[cst.CSTNode], ...] = (
        cst.Assign,
        cst.AnnAssign,
        cst.AugAssign,
        cst.For,
        cst.WithItem,
        cst.NamedExpr,
    )
    binders += (cst.Param, cst.ImportAlias, cst.Global, cst.Nonlocal, cst.Del)
    for node in nodes_of(module, binders):
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
    stripped = unmoved(value)
    moved, value = stripped is not value, stripped
    if moved and isinstance(value, (cst.Name, cst.Attribute)) and code_of(value) == held:
        return True
    return isinstance(value, cst.Call) and is_wrap(value)


def wrap_reaches(
    use: cst.Name,
    parent: Callable[[cst.CSTNode], cst.CSTNode | None],
    is_wrap: Callable[[cst.Call], bool],
) -> bool:
    """The one binding of `use`'s name that reaches it is a DataParallel wrap (class W2's
    `model = nn.Linear(4, 2)` then `model = nn.DataParallel(model)`, where only_wrapped
    fails): the nearest binding before `use` in the blocks around it, within its function,
    is a statement `name = DataParallel(...)`, or the wrapper moved (`name = name.to(d)`,
    which holds what reaches it: then the same is asked of that statement), and nothing
    binds the name after the wrap anywhere in the function but those moves (no later
    assignment, loop target, `global`/`nonlocal`, nested scope's rebinding), so no other
    value can reach `use`, whatever the branches and loops. A wrap in one branch of an `if`
    (foamliu/Transformer's resume: `else: model = checkpoint['model']`) is not in a block
    around the use: not proved."""
    held = use.value
    wrap: cst.CSTNode | None = None
    moves: list[cst.CSTNode] = []
    node: cst.CSTNode = use
    while wrap is None:
        above = parent(node)
        if above is None or isinstance(above, (cst.Lambda, cst.ClassDef)):
            return False
        if isinstance(above, (cst.IndentedBlock, cst.Module)) and node in above.body:
            index = list(above.body).index(node)  # type: ignore[arg-type]
            for statement in reversed(above.body[:index]):
                if not any(_binds(n, held) for n in walk(statement)):
                    continue
                kind = _binding_kind(statement, held, is_wrap)
                if kind == "wrap":
                    wrap = statement
                    break
                if kind != "move":
                    return False
                moves.append(statement)
        if isinstance(above, (cst.FunctionDef, cst.Module)) and wrap is None:
            return False
        node = above
    while not isinstance(node, (cst.FunctionDef, cst.Module)):
        found = parent(node)
        if found is None:
            return False
        node = found
    after = False
    for each in walk(node):
        if each is wrap:
            after = True
            continue
        if isinstance(each, (cst.Global, cst.Nonlocal)) and _names(each, held):
            return False
        if (
            after
            and _binds(each, held)
            and not any(_within(each, kept, parent) for kept in (wrap, *moves))
        ):
            return False
    return after


def _binding_kind(
    statement: cst.CSTNode, held: str, is_wrap: Callable[[cst.Call], bool]
) -> str | None:
    """ "wrap": `held = DataParallel(...)` (moved or not); "move": `held = held.to(d)`;
    None: another binding."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    assign = statement.body[0]
    if not (
        isinstance(assign, cst.Assign)
        and len(assign.targets) == 1
        and isinstance(assign.targets[0].target, cst.Name)
        and assign.targets[0].target.value == held
    ):
        return None
    value = unmoved(assign.value)
    moved = value is not assign.value
    if isinstance(value, cst.Call) and is_wrap(value):
        return "wrap"
    if moved and isinstance(value, cst.Name) and value.value == held:
        return "move"
    return None


def _within(
    node: cst.CSTNode, root: cst.CSTNode, parent: Callable[[cst.CSTNode], cst.CSTNode | None]
) -> bool:
    found: cst.CSTNode | None = node
    while found is not None:
        if found is root:
            return True
        found = parent(found)
    return False


def _binds(node: cst.CSTNode, held: str) -> bool:
    """`node` binds the name `held` (an assignment's, loop's, `with`'s, walrus's,
    handler's, import's or definition's target, a parameter, a `del`)."""
    targets: list[cst.CSTNode] = []
    if isinstance(node, cst.AssignTarget):
        targets.append(node.target)
    elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.NamedExpr)):
        targets.append(node.target)
    elif isinstance(node, (cst.For, cst.CompFor)):
        targets.append(node.target)
    elif isinstance(node, cst.AsName):
        targets.append(node.name)
    elif isinstance(node, cst.Del):
        targets.append(node.target)
    elif isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Param)):
        return node.name.value == held
    elif isinstance(node, cst.ImportAlias):
        return node.asname is None and code_of(node.name).split(".", 1)[0] == held
    elif isinstance(node, cst.ImportStar):
        return True
    return any(held in target_names(target) for target in targets)


def imported_pickler(
    names: set[str], picklers: Mapping[str, tuple[PickledParam, ...]]
) -> tuple[PickledParam, ...]:
    """Another module's function that pickles a parameter whole, by qualified name; a
    relative one (`.ckpt.save_checkpoint`, as `from .ckpt import save_checkpoint`
    spells it) by the program's names ending so. Where several do, which is called is
    not known: the first one's parameters, none proved only pickled (DP070, not
    `.module`)."""
    matched = told_matches(names, picklers)
    if not matched:
        return ()
    if len(matched) > 1 and matched[0] not in names:
        return tuple(replace(p, only=False) for p in picklers[matched[0]])
    return picklers[matched[0]]


def held_for_save(flow: DefUse, saved: cst.Name) -> list[cst.BaseExpression]:
    """`state = {'model': model, 'epoch': e}` (or `state['model'] = model`), then
    `torch.save(state, path)`: the values the bindings reaching the save put in the saved
    name (a container display bound to it, a store into it). Found at stop 64
    (dontLoveBugs/FCRN_pytorch@e42845d): a dict handed to `torch.save` through a name was
    not looked into, and the file held the DDP object with no warning; a display written
    in the call itself already was."""
    held: list[cst.BaseExpression] = []
    for found in flow.reaching(saved):
        value = found.value
        if found.kind == "store" and value is not None:
            held.append(value)
        elif found.kind in ("assign", "annassign") and not found.element:
            if isinstance(value, (cst.Dict, cst.List, cst.Tuple)):
                held.append(value)
    return held
