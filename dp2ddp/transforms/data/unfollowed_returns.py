"""A shuffled loader a function returns in a shape the exports cannot tell (class b3-A of
stop 49's second validation round, WenbinLee/DN4@440857b's `get_Fewshot_dataloader`).

The factory builds one loader per requested mode in a loop (`for mode in modes:`, one
`DataLoader(...)` call under each `if mode == 'train'` / `elif mode == 'val'` branch,
`loaders.append(loader)`, `return loaders`), and the entry unpacks them
(`train_loader, val_loader, test_loader = get_Fewshot_dataloader(opt, ['train', 'val',
'test'])`). The exports (imported.py) read a list appended in a loop as a shape they cannot
tell, so no importer's loops reach the loaders: each was planned on its own flag, and the
shuffled validation loader was sharded as training data, silently. Its figures (printed,
written to val_loss.txt, choosing the best checkpoint) were rank 0's half.

Nothing proves what the importers' loops do with such a loader; it stays sharded as the
flag says, and DP135 says so, with the function and the return that hand it on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import PositionProvider

from dp2ddp.transforms._support.nodes import walk

if TYPE_CHECKING:
    from dp2ddp.transforms.data.imported import LoaderImports, Origin
    from dp2ddp.transforms.data.plan import Loader


def returned_names(function: cst.FunctionDef) -> dict[str, cst.Return]:
    """The names `function` returns (`return loaders`, `return a, b`), each with a return."""
    found: dict[str, cst.Return] = {}
    for node in walk(function.body, skip_scopes=True):
        if not isinstance(node, cst.Return) or node.value is None:
            continue
        value = node.value
        items = value.elements if isinstance(value, (cst.Tuple, cst.List)) else ()
        for each in [value, *(e.value for e in items)]:
            if isinstance(each, cst.Name):
                found.setdefault(each.value, node)
    return found


def holds_loader(value: cst.BaseExpression, loader: Loader) -> bool:
    """`value` is the loader's call or the name it is bound to."""
    if value is loader.call:
        return True
    binding = loader.binding
    return (
        isinstance(value, cst.Name)
        and isinstance(binding, cst.Name)
        and value.value == binding.value
    )


def warn_unfollowed_return(t: LoaderImports, loader: Loader, function: cst.FunctionDef) -> None:
    """DP135 where `loader` (shuffled, no loop of this module over it) is appended to a
    list `function` returns, a shape the exports could not tell."""
    returned = returned_names(function)
    if not returned:
        return
    for node in walk(function.body, skip_scopes=True):
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
            continue
        owner = node.func.value
        if not (
            node.func.attr.value in ("append", "extend", "insert")
            and isinstance(owner, cst.Name)
            and owner.value in returned
            and any(holds_loader(arg.value, loader) for arg in node.args)
        ):
            continue
        label = t.code(loader.binding) if loader.binding is not None else "the loader"
        line = t.get_metadata(PositionProvider, returned[owner.value]).start.line
        t.warn(
            loader.call,
            "DP135",
            f"{label} is put in `{owner.value}` (`{t.code(node)}`), which "
            f"{function.name.value}() returns at line {line} in a shape dp2ddp does not "
            "follow to its callers' loops: not proved to train or to evaluate there; "
            "sharded as training data (shuffled): if it is evaluated there, its figures "
            "are this rank's share",
        )
        return


def warn_unfollowed_loop(
    t: LoaderImports, expr: cst.BaseExpression, origins: list[Origin], modules: dict[str, str]
) -> None:
    """DP027: a training loop iterates a loader returned by a project module program
    discovery could not follow (a folder put on sys.path at run time, say). Nothing
    shards that module's DataLoader, so every rank would train on the whole set; the
    rule is never to leave that silent."""
    for origin in origins:
        if origin.call is None:
            continue
        names = sorted(t.qualified_names(origin.call.func))
        module = names[0].split(".")[0] if names else ""
        if module in modules:
            t.warn(
                expr,
                "DP027",
                f"{t.code(expr)} comes from {t.code(origin.call.func)}() of "
                f"{modules[module]}, a module the entry's imports do not reach "
                "(a sys.path edit?): not sharded, every rank trains on all of it",
            )
            return
