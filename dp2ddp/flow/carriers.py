"""Calls a value passes through whole: the one home of those lists, for the walk
(flow/origins.py) and for the passes (analysis/device_moves.py, the data pass's meters).

* `METHODS`: tensor methods that change only where or as what the rows are held (`.to()`,
  `.cuda()`, `.float()`, `.detach()`...): the receiver's rows, as they are.
* `CONVERSIONS`: calls given the value first that convert it whole (`Variable(x,
  requires_grad=False)`, `torch.as_tensor(x, dtype)`, `torch.from_numpy(a)`): the rows of
  their first argument; what else they are given (a flag, a dtype, a device) only shapes
  the result. liucong3/audio_classification@08575b2 (round 22) wrote `input = Variable(input,
  requires_grad=False)` before `batch_size = input.size(0)`; a flag passed by position
  (`Variable(input, training)`) was read as data the batch's size may come from, and the
  size's proof (hazards/size_means.py) failed, unsaid.
* `TRANSPARENT`: calls whose result holds (a part of) what all their arguments hold
  (`zip`, `torch.cat`, `list`...), the conversions among them.
"""

from __future__ import annotations

import libcst as cst

#: Tensor methods that change only where or as what the rows are held.
METHODS = frozenset(
    {
        "to", "cuda", "cpu", "float", "double", "half", "bfloat16", "long", "int", "bool",
        "byte", "contiguous", "detach", "pin_memory", "type", "clone", "numpy",
    }
)  # fmt: skip
#: Calls given the value first that convert it whole (dtype=, device= beside it).
CONVERSIONS = frozenset(
    {
        "as_tensor", "tensor", "Tensor", "FloatTensor", "LongTensor", "from_numpy",
        "asarray", "Variable",
    }
)  # fmt: skip
#: Calls whose result holds (a part of) what their arguments hold.
TRANSPARENT = CONVERSIONS | frozenset(
    {
        "iter", "enumerate", "zip", "list", "tuple", "sorted", "reversed", "tqdm",
        "trange", "array", "ascontiguousarray", "stack", "cat", "concatenate", "join",
        "Path", "str", "deepcopy", "copy", "dict", "set", "map", "filter", "to_tensor",
        "autocast",
    }
)  # fmt: skip


def kept_argument(call: cst.Call, last: str) -> cst.Arg | None:
    """The argument whose rows `call` (a callee named `last`) keeps where it is one of the
    CONVERSIONS given that value first, by position (not starred); None otherwise."""
    if last not in CONVERSIONS or not call.args:
        return None
    first = call.args[0]
    return first if first.keyword is None and not first.star else None
