"""The loaders one factory builds per branch that stand for each other in its export
(data/imported.py: a factory returning one of them in a slot is exported as for one)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.nodes import enclosing_function
from dp2ddp.transforms.data.batch_shard import is_sampler_shard

if TYPE_CHECKING:
    from dp2ddp.transforms.data import ShardDataLoaders
    from dp2ddp.transforms.data.plan import Loader


def alike_loaders(t: ShardDataLoaders, loader: Loader, function: cst.FunctionDef) -> set[cst.Call]:
    """The other DataLoader calls of `function` that this pass shards as `loader`: one
    per branch of a factory (`if args.task_name == ...: data_loader = DataLoader(...)`,
    each branch `return data_set, data_loader`; thuml/Time-Series-Library@4e938a1's
    data_provider, class v3-B of stop 41), each with the same `shuffle=` argument, no
    sampler of its own and no loop of this module over it. Whatever branch runs, the
    slot holds a loader sharded alike, so the factory is exported as for one loader;
    before, it was not exported, and its evaluation calls in the importer were sharded
    as training data, silently."""

    def shuffle_of(other: Loader) -> str | None:
        index = other.args.get("shuffle")
        return None if index is None else t.code(other.call.args[index].value)

    def sampler_of(other: Loader) -> str | None:
        index = other.args.get("sampler")
        return None if index is None else t.code(other.call.args[index].value)

    def at_run_time(call: cst.Call) -> bool:
        """Sharded by `**ddp_loader_arguments(...)`, whatever sampler it is given."""
        return call in t._sampler_sharded and t._shards[call].arguments is not None

    def sharded(call: cst.Call) -> bool:
        planned = t._loaders.get(call)
        return at_run_time(call) or planned is not None and "sampler" not in planned.args

    sampled = loader.call in t._sampler_sharded  # alike: the same sampler, sharded
    pool = t._sampler_sharded if sampled else t._loaders
    if at_run_time(loader.call):
        pool = {**t._loaders, **t._sampler_sharded}
    return {
        call
        for call, other in pool.items()
        if call is not loader.call
        and enclosing_function(call, t) is function
        and not other.loops
        and other.own is None
        and "batch_sampler" not in other.args
        and (
            # sharded whatever its sampler, beside one sharded at run time (round 33,
            # kampta/PatchVAE@816f4b4 utils/commons.py: a SubsetRandomSampler in one
            # branch, shuffle in the other: no export, and the importer's running
            # figures were rank 0's half, no DP030)
            at_run_time(loader.call)
            and sharded(call)
            or (is_sampler_shard(t._shards[call]) if sampled else "sampler" not in other.args)
            and shuffle_of(other) == shuffle_of(loader)
            and sampler_of(other) == sampler_of(loader)
        )
    }
