"""The cause verify names from its own migration's DP071: a loss that divides one sum over
the batch by another (Dice, IoU). The mean of the ranks' gradients of their parts' ratios is
not the gradient of the whole batch's ratio, so the updates differ from step 1
(Beckschen/TransUNet@02ef001: "no known cause matched" before)."""

from __future__ import annotations

import re

from dp2ddp.verify.report import Cause


def warned(warnings: tuple[str, ...], code: str) -> list[str]:
    """`path:line` of each warning of `code` among `path:line:col CODE message` lines (verify's
    own migration's, every module of the program: a loss module without a wrap too)."""
    pattern = re.compile(rf"^(.*?):(\d+):\d+: {code} ")
    return [f"{m[1]}:{m[2]}" for m in (pattern.match(w) for w in warnings) if m]


def batch_ratios(places: list[str]) -> Cause:
    """Named where the data split right and the updates differ (causes.diagnose)."""
    shown = "; ".join(places[:3]) + (f" and {len(places) - 3} more" if len(places) > 3 else "")
    return Cause(
        "batch_ratio_loss",
        "a loss divides one sum over the batch by another",
        f"{shown}: under DDP each rank takes the ratio of its own part's sums (a Dice or "
        "IoU loss) and DDP averages the ranks' gradients; DataParallel's loss was the whole "
        "batch's ratio, whose gradient differs (DP071)",
        "All-reduce both sums over the ranks (torch.distributed.nn.functional.all_reduce "
        "keeps the gradients) before dividing, times WORLD_SIZE, or accept per-rank ratios; "
        "verify then cannot show equivalence for this loss.",
    )
