"""DP042's text for a wrap of a model held by an object (`owner.x = DataParallel(owner.x)`),
asked by the model-wrap pass: whether the owner's class is a module of the program (its
other parameters DDP does not average), a plain object holding models, or not known."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from dp2ddp.transforms._support import ast_nodes

if TYPE_CHECKING:
    from dp2ddp.transforms.analysis.wrapped_model import UnusedParameters


def holder_text(unused: UnusedParameters, target: str, owner: str) -> str:
    """DP042's text for `owner.x = DataParallel(owner.x)` (`target` is `owner.x`): ""
    where `owner` is proved a plain object (built in this file by a class of its own
    with no base class: a trainer holding models, LeeDoYup/FixMatch-pytorch@f167d64's
    `FixMatch`), whose other attributes are no parameters of the wrapped model's; the
    plain claim where its class is one of the program's nn.Module classes; else said
    as what it is, a question of `owner`'s class."""
    kind = _owner_class(unused, owner)
    if kind == "plain":
        return ""
    claim = f"`{target}` is part of `{owner}`, whose other parameters DDP does not average"
    if kind == "module":
        return claim
    return (
        f"`{target}` is an attribute of `{owner}`, whose class is not read here: if it is "
        f"an nn.Module, its other parameters DDP does not average (a plain object holding "
        "models is no concern: wrap each model it trains)"
    )


def _owner_class(unused: UnusedParameters, owner: str) -> str:
    """ "module" where some binding of `owner` (a name) in this file calls one of the
    program's nn.Module classes; "plain" where every binding calls one class of this
    file with no base class; "" (not known) otherwise."""
    if "." in owner:
        return ""
    built = {
        ast.unparse(node.value.func)
        for node in ast_nodes.walk(unused._ast())
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Call)
        and any(isinstance(t, ast.Name) and t.id == owner for t in node.targets)
    }
    classes = unused._model_classes()
    if any(name in classes or name.rsplit(".", 1)[-1] in classes for name in built):
        return "module"
    own = [n for n in unused._ast().body if isinstance(n, ast.ClassDef) and n.name in built]
    plain = len(built) == 1 and len(own) == 1 and not own[0].keywords
    if plain and all(isinstance(b, ast.Name) and b.id == "object" for b in own[0].bases):
        return "plain"
    return ""
