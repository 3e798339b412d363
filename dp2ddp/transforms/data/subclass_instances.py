"""Instances of a sharding DataLoader subclass that evaluate: kept whole, instance by instance.

A project class deriving from DataLoader whose `__init__` hands `super().__init__` a
`sampler=` / `batch_sampler=` of its own is rewritten with `**ddp_loader_arguments(...)`
(batch_shard.py), which shards every loader the class builds. Round 26
(remiMZ/MRN-ICASSP22@0952cf3, BatchMetaDataLoader): the validation and test loaders were
built from the same class, so each rank evaluated half the tasks, and the figures, kept in
the program's meter classes (a list averaged with numpy), were rank 0's half: the saved
checkpoint chosen on them, the test accuracy written to a CSV, nothing said.

As for a factory of both kinds of loaders (factory_sites.py), the class's `__init__` takes
`ddp_shard=True` and hands it to ddp_loader_arguments, which returns the arguments as
written when it is False; each instance of the module whose every loop evaluates
(`_evaluates`: `no_grad()`, after `.eval()`, a loop that never trains) passes
`ddp_shard=False`: every rank goes through all of it and gets the original's figures (DP015
says so, as for a plain evaluation loader left whole). The program tells each module the
flagged classes of its other modules (ProgramLoaders.flagged_loaders): their instances there
are classified alike; a sharding class the flag cannot reach is said at its evaluation-shaped
instances of other modules (program/loader_subclasses.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.names import DATALOADER
from dp2ddp.transforms._support.nodes import ModuleNodes, keyword, name_of, walk
from dp2ddp.transforms.data.batch_shard import (
    BATCH_SHARD,
    ShardEdit,
    is_batch_shard,
    plan_batch_shard,
)
from dp2ddp.transforms.data.flow import reaching_loaders
from dp2ddp.transforms.data.plan import POSITIONS, SHARD_FLAG, Loader
from dp2ddp.transforms.data.unlooped_shards import live_loops

if TYPE_CHECKING:
    from dp2ddp.transforms.data import ShardDataLoaders


def plan_subclasses(data: ShardDataLoaders, nodes: ModuleNodes) -> None:
    """A DataLoader subclass that builds its own sampler and passes it to
    `super().__init__(..., sampler=...)` (victoresque/pytorch-template's BaseDataLoader):
    the sampler is sharded as a loader's own (DdpBatchShard); at run time, its
    evaluation instances built whole (subclass_instances.py)."""
    at_run_time: dict[str, tuple[cst.ClassDef, cst.Call]] = {}
    for cls in nodes.of(cst.ClassDef):
        if not any(data.matches(b.value, DATALOADER) for b in cls.bases):
            continue
        for call in walk(cls.body):
            if not (
                isinstance(call, cst.Call)
                and isinstance(call.func, cst.Attribute)
                and call.func.attr.value == "__init__"
                and isinstance(call.func.value, cst.Call)
                and name_of(call.func.value.func) == "super"
            ):
                continue
            args = {a.keyword.value: i for i, a in enumerate(call.args) if a.keyword}
            positional = [i for i, a in enumerate(call.args) if not a.keyword and not a.star]
            for position, index in zip(POSITIONS, positional, strict=False):
                args.setdefault(position, index)
            for key in ("sampler", "batch_sampler"):
                if key not in args or data._always_none(call.args[args[key]].value):
                    continue
                sampler = call.args[args[key]].value
                if data._is_ours(sampler) or is_batch_shard(sampler):
                    break
                planned = plan_batch_shard(data, call, key, args, cls.name.value)
                if isinstance(planned, str):
                    data.warn(call, "DP009", planned)
                else:
                    data._shards[call] = planned
                    if planned.arguments is not None:
                        at_run_time[cls.name.value] = (cls, call)
                    data.record(
                        call,
                        f"{cls.name.value}, a DataLoader: every rank draws its {key}'s "
                        f"global batches alike and takes its contiguous part ({BATCH_SHARD})",
                    )
                break
    keep_evaluation_instances(data, nodes, at_run_time)


def keep_evaluation_instances(
    data: ShardDataLoaders, nodes: ModuleNodes, sharded: dict[str, tuple[cst.ClassDef, cst.Call]]
) -> None:
    """`sharded`: class name -> (the class, its `super().__init__` call sharded at run time).
    The class's `__init__` takes `ddp_shard=True`; each instance of this module whose loops
    all evaluate is built whole (`ddp_shard=False`), also of such a class of another module
    (ProgramLoaders.flagged_loaders)."""
    flagged = {name for name, (cls, call) in sharded.items() if _flag(data, cls, call)}
    flagged |= {c.rpartition(".")[2] for c in data.state.loaders.flagged_loaders}
    if not flagged:
        return
    module = data._module_node
    instances = {
        call: Loader(call, {}, *data._binding(call), None)
        for call in nodes.of(cst.Call)
        if name_of(call.func) in flagged
        and not any(a.keyword and a.keyword.value == SHARD_FLAG for a in call.args)
    }
    for loop in live_loops(data, nodes) if instances else ():
        for expr in data._iterated_through_names(loop.iter):
            for call, path in reaching_loaders(module, expr, data._resolve(expr, instances, 0)):
                if not any(seen is loop for seen, _, _ in instances[call].loops):
                    instances[call].loops.append((loop, expr, path))
    for call, loader in instances.items():
        if not loader.loops or not all(data._evaluates(loop) for loop, _, _ in loader.loops):
            continue
        data._factory_sites.keep_whole(call)
        data.warn(
            call,
            "DP015",
            f"{data.code(loader.binding) if loader.binding is not None else 'this loader'}, "
            f"built from {name_of(call.func)} (a DataLoader subclass this migration shards), "
            f"is only evaluated: built whole ({SHARD_FLAG}=False), every rank goes through "
            "all of it",
        )


def _flag(data: ShardDataLoaders, cls: cst.ClassDef, init_call: cst.Call) -> bool:
    """Give `cls`'s `__init__` the flag, handed to ddp_loader_arguments at `init_call`,
    where the call is in `__init__` itself (the flag's scope)."""
    shard = data._shards.get(init_call)
    init = next(
        (
            f
            for f in walk(cls.body)
            if isinstance(f, cst.FunctionDef) and f.name.value == "__init__"
        ),
        None,
    )
    if shard is None or shard.arguments is None or init is None:
        return False
    if not any(node is init_call for node in walk(init.body)):
        return False
    arguments = shard.arguments
    flag = keyword(SHARD_FLAG, cst.Name(SHARD_FLAG))
    data._shards[init_call] = ShardEdit(
        shard.replace,
        shard.wrapper,
        shard.drop,
        arguments.with_changes(args=[*arguments.args, flag]),
        shard.batch,
    )
    data._factory_sites.take_flag(init)
    return True
