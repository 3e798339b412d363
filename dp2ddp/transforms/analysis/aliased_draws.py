"""Draws made through a name bound to a torch draw function (the randomness pass's).

GAN trainers pick the prior by an option, `distrib = torch.randn if gaussian else
torch.rand`, then draw the batch's latent rows with `z = distrib(b, Z)` (round 38,
akanimax/Variational_Discriminator_Bottleneck@26a39dd): the call names no draw itself, so
the rows were drawn alike on every rank with no word. Where every binding of the name is
such a function, or a choice between such functions, the call draws as they do.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from dp2ddp.flow import DefUse
from dp2ddp.transforms.analysis.batch_noise import BATCH_DRAWS


def aliased_draw(
    flow: DefUse | None, call: cst.Call, qualified_names: Callable[[cst.CSTNode], set[str]]
) -> set[str]:
    """The draw functions (qualified) the name `call` calls stands for, where every binding
    of it is one, or a conditional expression choosing between them; else nothing."""
    if not isinstance(call.func, cst.Name) or flow is None:
        return set()
    found: set[str] = set()
    for definition in flow.definitions(call.func):
        value = definition.value
        if definition.kind != "assign" or value is None:
            return set()
        arms = [value.body, value.orelse] if isinstance(value, cst.IfExp) else [value]
        for arm in arms:
            named = set(qualified_names(arm)) & BATCH_DRAWS
            if not isinstance(arm, (cst.Name, cst.Attribute)) or not named:
                return set()
            found |= named
    return found
