"""Wrapped models a library builds (DP102, asked by analysis/wrapped_model.py).

A model built by an imported callable of no module of the program (a library's class or
factory) has a forward() no pass reads: whether a step leaves some of its parameters
without a gradient is not known, and the wrap gets find_unused_parameters=True with DP102.
A library wrapper handed a model built here (`Wrapper(model)`) wraps that model: it is
judged as the model is.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms.analysis.built_by import built_by

if TYPE_CHECKING:
    from dp2ddp.flow import DefUse
    from dp2ddp.transforms._support.base import MigrationTransform


def library_text(
    t: MigrationTransform,
    flow: DefUse,
    built: cst.BaseExpression,
    classes: dict[str, str],
    roots: set[str],
) -> str:
    """DP102's text where the wrapped model is built by an imported callable of no
    module of the program (a library's class or factory: `BertForTokenClassification.
    from_pretrained(...)`, `models.resnet18()`), whose forward() is not read; "" for
    torch.nn's own layers, the program's classes and what is not imported (class v2-C,
    stop 40: lemonhu/NER-BERT-pytorch@5f7577b, whose BERT pooler gets no gradient under
    token classification; DDP failed at the second step with no word)."""
    if not flow.imported_root(built):
        return ""
    names = sorted(n for n in t.qualified_names(built) if not n.startswith("."))
    roots = set(roots)
    known = {*classes, *(name for name, _ in t.state.loaders.consumers)}
    roots |= {k.split(".", 1)[0] for k in known}
    if not names or any(
        n.split(".", 1)[0] in roots or any(k == n or k.endswith(f".{n}") for k in known)
        for n in names
    ):
        return ""  # the program's own (a module of a package, a script's sibling)
    name, package = names[0], names[0].split(".", 1)[0]
    if package in sys.stdlib_module_names or package == "dp2ddp" or _handed(t, built, classes):
        return ""  # `copy.deepcopy(model)`, a library wrapper of a model built here
    if name in ("torch.load", "torch.jit.load", "torch.hub.load"):
        how = f"comes from `{name}`: its class is not known statically"
    elif package == "torch":
        return ""  # torch.nn's own layers, `torch.compile(model)`
    else:
        how = f"is built by `{name}`, from {package} (no file of the program: a library)"
    return (
        f"the model {how}, and its forward() is not read: whether it leaves some "
        "parameters without a gradient in a step is not known (a library BERT's pooler "
        "under token classification gets none: DDP fails at the second step); "
        "find_unused_parameters=True runs either way, at the cost of one walk of the "
        "autograd graph per step"
    )


def _handed(t: MigrationTransform, built: cst.BaseExpression, classes: dict[str, str]) -> bool:
    """The call of `built` is handed a model built in this file (`Wrapper(model)`,
    `model` assigned from a call of a class of the program), or rebinds the name it is
    handed (`model = Wrapper(model)`): it wraps that model, judged as before."""
    call = t.parent(built)
    if not isinstance(call, cst.Call):
        return False
    bound = t.parent(call)
    rebinds = isinstance(bound, cst.Assign) and {
        a.target.value for a in bound.targets if isinstance(a.target, cst.Name)
    }  # `model = Wrapper(model)`: the model it was handed, under a library's wrapper
    for arg in call.args:
        if rebinds and isinstance(arg.value, cst.Name) and arg.value.value in rebinds:
            return True
        if arg.keyword is None and isinstance(arg.value, (cst.Name, cst.Call)):
            inner = built_by(t, arg.value)
            names = t.qualified_names(inner) if inner is not None else set()
            if isinstance(inner, cst.Name):
                names = names | {inner.value}
            if any(n in classes for n in names):
                return True
    return False
