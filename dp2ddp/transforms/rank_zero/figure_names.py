"""A shared path named by a figure of this rank's own batches: said, not shared (DP030).

A checkpoint folder named by the training loop's loss (`ckpt/step{n}_loss-{loss:.3f}`,
round 37, h1's D6 from baokui/GPT2-Chinese@9847c01): once the loader is sharded the loss
is this rank's share, so rank 0's folder carries its half-batch figure and each other
rank's mkdir makes a folder of its own, empty. Rank 0's value on every rank
(ddp_rank0_value) would make one folder, but still not under the original's figure (and a
loss has a graph rank 0's copy would lack), so the path is said as DP030, the code of a
figure of this rank's share put out as the whole batch's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dp2ddp.transforms.rank_zero.handed_sinks import Sink
    from dp2ddp.transforms.rank_zero.run_dir import RunDirValues


def named_by_own_figure(rule: RunDirValues, sinks: list[Sink]) -> None:
    """DP030 at each path sink (run_dir._path_sinks) made, opened or read on every rank
    whose path reads a figure a training loop around it computes from this rank's batches
    (run_dir._from_own_batches). Not a file rank 0 alone writes: one file, and a running
    figure in its name is DP030 already (data_s70_lead_figure_in_checkpoint_name)."""
    for sink in sinks:
        if sink.written or not rule._from_own_batches(sink.expr, sink.site):
            continue
        line = rule.t.input_position(sink.site)[0]
        apart = "; each rank makes or opens its own, rank 1's a second one"
        rule.t.warn(
            sink.site,
            "DP030",
            f"`{rule.t.code(sink.expr)}` names {sink.named[0]} from a figure of this rank's "
            f"own batches: rank 0's share, not the figure DataParallel named it by{apart} "
            f"(`{rule.t.code(sink.site)}` at line {line})",
        )
