"""A Dataset's transform that is a function of the program which draws per sample (DP067).

dataset_draws.py reads `self.transform(sample)` in `__getitem__` against the transform
classes of its module (a `__call__` that draws). A transform as often is a lambda or a
function handed to the dataset's constructor (`Images(8, transform=dequant)`, `dequant =
lambda x: x + torch.zeros_like(x).uniform_(0, 1 / 256)`: pclucas14/pytorch-glow's
dequantization noise, round 20 of issue 28): followed through the def-use view
(flow.origins of `self.transform`: the attribute's binding, the constructor's parameter, the
argument each construction passes) to the function or lambda it holds, whose body draws from
a process-wide stream every rank seeds alike: rank r's k-th sample gets every rank's k-th
draw, as for a transform class.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from dp2ddp.flow import origins, view
from dp2ddp.transforms._support.nodes import code_of, walk
from dp2ddp.transforms.analysis.random_draws import RANDOM_DRAWS, fresh_fill
from dp2ddp.transforms.analysis.seeded_streams import stream_of

Check = Callable[[cst.Call], bool]


def drawing_callable(
    module: cst.Module,
    func: cst.Attribute,
    qualified: Callable[[cst.CSTNode], set[str]],
    alike_draw: Check,
    alike_stream: Callable[[str | None], bool],
) -> list[tuple[str, str | None]]:
    """(what draws, its stream) for the first draw of each function or lambda `func` (the
    attribute a per-sample method calls) may hold: a draw `alike_draw` accepts, or a fill
    of a tensor just built (`zeros_like(x).uniform_()`) where torch's stream is seeded
    alike (`alike_stream`)."""
    found: list[tuple[str, str | None]] = []
    for origin in origins(view(module), func):
        body = origin.node
        if origin.kind != "definition" or not isinstance(body, (cst.Lambda, cst.FunctionDef)):
            continue
        for node in walk(body.body):
            if not isinstance(node, cst.Call):
                continue
            names = qualified(node.func)
            drawn = bool(names & RANDOM_DRAWS) and alike_draw(node)
            if drawn or (fresh_fill(node) and alike_stream("torch")):
                stream = stream_of(names) if drawn else "torch"
                shown = f"{code_of(func)} = {code_of(body)[:30]}...: {code_of(node.func)[-40:]}()"
                found.append((shown, stream))
                break
    return found
