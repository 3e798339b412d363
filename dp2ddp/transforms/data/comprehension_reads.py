"""Why an evaluation loader no `for` statement iterates is left whole (DP015's text).

`val = sum(loss(model(x), y).item() for x, y in val_loader)`: the loader is read in a
comprehension, not by a loop the evaluation rule reads (its counters, lists, meters). Left
whole, DP015 said "no loop over this evaluation loader found", false of such a program
(stop 49, the reproduction of class b1-B); it names the comprehension now.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.nodes import iterated, module_of, nodes_of

if TYPE_CHECKING:
    from dp2ddp.transforms.data.evaluation import LoaderEvaluation
    from dp2ddp.transforms.data.plan import Loader

_NO_LOOP = "no loop over this evaluation loader found"


def unlooped_reason(t: LoaderEvaluation, loader: Loader) -> tuple[cst.CSTNode, str]:
    """(where, why) for an evaluation loader with no `for` loop over it: the first
    comprehension of its module that iterates it, else the loader's call."""
    module = module_of(loader.call, t)
    if isinstance(module, cst.Module):
        for comp in nodes_of(module, cst.CompFor):
            for expr in iterated(comp.iter):
                if any(c is loader.call for c, _ in t._resolve(expr, {loader.call: loader}, 0)):
                    return comp, (
                        f"{t.code(expr)} is read in a comprehension (`for "
                        f"{t.code(comp.target)} in {t.code(comp.iter)}`), and dp2ddp sums "
                        "no figure computed there over the ranks"
                    )
    return loader.call, _NO_LOOP
