"""A factory's loader that trains here and is handed on where it is not proved to train.

Round 30 (zhoudw-zdw/CVPR22-Fact@825933b): one call of a factory of another module,
`trainset, trainloader = get_dataloader(args, session)`, built the loader a loop here
trains on in the first session and, in the later ones, a loader whose one batch is the
whole support set, handed to `model.module.update_fc(trainloader, ...)` under `no_grad()`:
that method took class prototypes from its one batch into the classifier's weights. Sharded
as training data (the call's loader trains), each rank took its own share's prototypes,
NaN for a class its share lacked, and nothing was said: the factory's call was judged by
the training loop alone (imported.py, `_evaluation_factory_calls`).

Now such a call gets DP084 naming where its loader is handed: no proof reaches what the
callee makes of this rank's share there (state it keeps, figures it returns).
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.names import DATALOADER
from dp2ddp.transforms._support.nodes import ModuleNodes
from dp2ddp.transforms.data.handoffs import handed_on, handed_role

if TYPE_CHECKING:
    from dp2ddp.transforms.data.imported import LoaderImports

#: Libraries whose loader-making calls are not the program's factories.
_LIBRARIES = ("torch.", "torchvision.", "builtins.")


def handed_beside_training(t: LoaderImports, nodes: ModuleNodes) -> None:
    """DP084 at each call of another module's function (not torch's DataLoader: a loader
    built here is handoffs.py's) whose loader a loop here trains on and that is also
    handed on to a call where what it does is not proved (handoffs.handed_role: neither
    training nor an evaluation, whose figures that module's DP015 speaks of)."""
    trained: dict[int, cst.Call] = {}
    for loop in nodes.of(cst.For):
        for made, _ in t._origins_of(loop) if t._trains(loop) else ():
            names = t.qualified_names(made.func)
            if (
                names
                and not names & DATALOADER
                and not any(n.startswith(_LIBRARIES) for n in names)
            ):
                trained[id(made)] = made
    for call in trained.values():
        handed = handed_on(t, partial(_built_by, t, call))
        if not handed or handed_role(handed) is not None:
            continue  # trains there too, or evaluates there (that module's DP015 says it)
        where = "; ".join(f"{h.text()} at line {t.line_of(h.site)}" for h in handed)
        t.warn(
            call,
            "DP084",
            f"the loader {t.code(call.func)}() builds trains in a loop here and is also "
            f"handed to {where}, not proved to train there: sharded as training data, what "
            "it computes there is this rank's share (state it keeps, figures), not the "
            "whole set's",
        )


def _built_by(t: LoaderImports, call: cst.Call, expr: cst.BaseExpression) -> bool:
    """`expr` holds what `call` returns."""
    return any(o.call is call for o in t._origins(expr, (), 0))
