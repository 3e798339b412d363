"""Noise drawn by filling a tensor shaped like the batch in place (`torch.FloatTensor(
img.size()).normal_(std=s)`, `torch.zeros_like(x).uniform_()`): the DnCNN spelling of a
denoiser's training noise (round 21, hellloxiaotian/ADNet@6debc33; SaoYan/DnCNN-PyTorch).

It is a draw for the batch as `torch.randn(img.size())` is: DataParallel's one process drew
it once for the global batch; migrated, each rank fills its share's tensor from a stream
seeded alike, the same numbers on every rank. analysis/batch_noise.like_argument reads
the tensor it is shaped like from here, so the draw is rewritten as that one is
(`ddp_draw_share(lambda: torch.FloatTensor(ddp_global_like(img).size()).normal_(...))`)
and DP006 is not said of it.
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.transforms._support.names import INPLACE_RANDOM_FILLS
from dp2ddp.transforms._support.nodes import name_of

#: What a fill shaped like a tensor is named as among a draw's qualified names (a tensor
#: method has none libcst knows): shared_draws' candidates are the draws so named.
FILLED_LIKE = "torch.Tensor.random_fill_"
#: Factories given a tensor's whole shape (`torch.FloatTensor(x.size())`), or the tensor.
_SIZED = frozenset(
    {"FloatTensor", "DoubleTensor", "HalfTensor", "Tensor", "zeros", "ones", "empty"}
)
_LIKE = frozenset({"zeros_like", "ones_like", "empty_like"})


def filled_like(call: cst.Call) -> cst.BaseExpression | None:
    """The tensor `call` fills a new tensor shaped like, in place, with random numbers;
    None for anything else (a fill of a weight, `w.normal_()`, or with a `generator=`)."""
    func = call.func
    if not isinstance(func, cst.Attribute) or func.attr.value not in INPLACE_RANDOM_FILLS:
        return None
    if any(a.keyword is not None and a.keyword.value == "generator" for a in call.args):
        return None
    made = func.value
    if not isinstance(made, cst.Call) or any(a.star for a in made.args):
        return None
    last = (name_of(made.func) or "").rpartition(".")[2]
    if last == "clone" and isinstance(made.func, cst.Attribute) and not made.args:
        return made.func.value  # `x.clone().normal_()`
    if len(made.args) != 1 or made.args[0].keyword is not None:
        return None
    given = made.args[0].value
    if last in _LIKE:
        return given
    if last not in _SIZED:
        return None
    if isinstance(given, cst.Call) and not given.args:
        given = given.func  # `x.size()`
    if isinstance(given, cst.Attribute) and given.attr.value in ("shape", "size"):
        return given.value
    return None


def with_fill(call: cst.Call, names: set[str]) -> set[str]:
    """A draw's qualified names, FILLED_LIKE among them where `call` is such a fill."""
    return {*names, FILLED_LIKE} if filled_like(call) is not None else names
