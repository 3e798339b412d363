"""Exports a second run makes again: a module migrated before is unchanged, so what its
first run exported must be told to its importers all the same (state.standing), else they
read its loaders as whole and their migration is no fixed point."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms.data.plan import Loader
from dp2ddp.transforms.data.trained_returns import export_trained

if TYPE_CHECKING:
    from dp2ddp.transforms.data import ShardDataLoaders


def export_run_time(t: ShardDataLoaders, call: cst.Call) -> None:
    """A loader whose arguments already go to ddp_loader_arguments: exported again, as the
    first run did."""
    before = len(t.state.exports)
    t._export(Loader(call, {}, *t._binding(call), None), t._all_loaders, False)
    t.state.standing += t.state.exports[before:]


def export_trained_again(t: ShardDataLoaders, call: cst.Call, sampler: cst.BaseExpression) -> None:
    """A loader this migration sharded (`sampler=DdpDistributedSampler(...)`): exported
    again where another module's training loop takes it, as the first run exported it, so
    its importers' hand-offs stay sharded (stop 73: a step function of a third module given
    its batches split them again on the second run)."""
    if not t._is_ours(sampler):
        return
    before = len(t.state.exports)
    export_trained(t, Loader(call, {}, *t._binding(call), None))
    t.state.standing += t.state.exports[before:]
