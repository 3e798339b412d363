"""DP010: where the program sets CUDA_VISIBLE_DEVICES itself.

Under torchrun each process is pinned to its GPU by LOCAL_RANK; a program that narrows the
visible devices (`os.environ["CUDA_VISIBLE_DEVICES"] = ...`, `os.environ.setdefault(...)`,
`os.putenv(...)`, `os.environ.update({...})`) hides the GPUs the other ranks were given. These
tests read the call's or the item's key only; the pass (hazards) says where.
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.transforms.hazards.losses import string_value

#: The environment variable that selects the visible GPUs.
VISIBLE_DEVICES = "CUDA_VISIBLE_DEVICES"

#: Calls that set an environment variable by name (their first argument or a dict's key).
ENV_SETTERS = frozenset({"os.environ.setdefault", "os.putenv", "os.environ.update"})


def sets_visible_devices(node: cst.Call) -> bool:
    """True where a call of ENV_SETTERS names CUDA_VISIBLE_DEVICES (positional, keyword, or
    a key of the dict it is handed)."""
    if not node.args:
        return False
    first = node.args[0]
    if first.keyword is None and string_value(first.value) == VISIBLE_DEVICES:
        return True
    keys = [arg.keyword.value for arg in node.args if arg.keyword is not None]
    if VISIBLE_DEVICES in keys:
        return True
    if isinstance(first.value, cst.Dict):
        return any(
            isinstance(e, cst.DictElement) and string_value(e.key) == VISIBLE_DEVICES
            for e in first.value.elements
        )
    return False
