"""Loaders with a sampler or batch sampler of their own: sharded as DataParallel split them.

DataParallel drew one batch from the loader's one sampler and scattered it in contiguous
chunks, one per GPU. The faithful DDP equivalent, DdpBatchShard
(templates/helpers/batch_shard.py.j2): every rank draws the same sequence from the user's
sampler (rank 0's generator states, ddp_same_random: the mechanism of shared_draws), and
keeps its own contiguous part of each global batch (ddp_rank_slice). A sampler beside a
batch_size stays a sampler (DdpSamplerShard yields this rank's parts' indices, the loader
batches them by the per-rank batch), so `loader.batch_size` stays a number programs read
back (`np.sqrt(loader.batch_size)`); a batch sampler of the user's own is wrapped as a
batch sampler (its loader's batch_size was None already). So

    DataLoader(ds, batch_size=64, sampler=RandomIdentitySampler(...), drop_last=True)
    -> DataLoader(ds, batch_size=ddp_per_rank_batch(64),
                  sampler=DdpSamplerShard(RandomIdentitySampler(...),
                                          ddp_per_rank_batch(64), drop_last=True),
                  drop_last=True)
    DataLoader(ds, batch_sampler=BucketSampler(...))
    -> DataLoader(ds, batch_sampler=DdpBatchShard(BucketSampler(...)))

The per-rank batch follows the data pass's batch policy (B // WORLD_SIZE; `B * n_gpu` -> B;
--per-process-batch keeps B). DP009 stays where the shape cannot be kept: an evaluation
loader (its figures are not summed over the ranks here), `batch_size=None`, `shuffle=`
beside the sampler (DataLoader rejects the pair: not ours to make it run), arguments
passed with ** that may hold batch_size or drop_last, a sampler passed by position.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from dp2ddp.transforms._support.nodes import (
    ModuleNodes,
    assigned_value,
    call_named,
    is_false,
    keyword,
    name_of,
    walk,
)
from dp2ddp.transforms.data.batch_size import LoaderBatchSize
from dp2ddp.transforms.data.plan import EVAL_NAME, SHARD_FLAG
from dp2ddp.transforms.data.undividable_batch import said_undividable_batch

BATCH_SHARD = "DdpBatchShard"
SAMPLER_SHARD = "DdpSamplerShard"
RUN_TIME = "ddp_loader_arguments"
HELPERS = frozenset({"batch_shard", "rank_slice", "same_random", "rank0_value"})


@dataclass(frozen=True)
class ShardEdit:
    """How leave_Call rewrites a loader with its own sampler."""

    replace: int  # index of the sampler=/batch_sampler= argument
    #: DdpBatchShard(...) as batch_sampler=, DdpSamplerShard(...) as sampler= (`... if
    #: ddp_shard else sampler` in a factory that also builds evaluation loaders)
    wrapper: cst.Call | cst.IfExp
    drop: tuple[int, ...]  # arguments removed
    #: Arguments passed with **: every argument goes to ddp_loader_arguments(...) instead,
    #: which shards at run time (`**ddp_loader_arguments(sampler=s, **kwargs)`).
    arguments: cst.Call | None = None
    #: The batch_size= argument's index and its per-rank value (beside DdpSamplerShard).
    batch: tuple[int, cst.BaseExpression] | None = None


def is_batch_shard(value: cst.BaseExpression) -> bool:
    """Already sharded (a second run): a shard helper's call, also as a factory's `<it> if
    ddp_shard else <its own sampler>` (FactorySites.split_shards)."""
    if isinstance(value, cst.IfExp) and name_of(value.test) == SHARD_FLAG:
        value = value.body
    return isinstance(value, cst.Call) and name_of(value.func) in (BATCH_SHARD, SAMPLER_SHARD)


def sharded_at_run_time(call: cst.Call) -> bool:
    """A loader whose arguments already go to ddp_loader_arguments (a second run)."""
    return any(
        a.star == "**" and isinstance(a.value, cst.Call) and name_of(a.value.func) == RUN_TIME
        for a in call.args
    )


def is_sampler_shard(shard: ShardEdit) -> bool:
    """A `sampler=DdpSamplerShard(...)` rewrite (maybe already made conditional on the
    factory's ddp_shard: `... if ddp_shard else sampler`), not a batch sampler's or one
    made at run time."""
    wrapper = shard.wrapper.body if isinstance(shard.wrapper, cst.IfExp) else shard.wrapper
    called = isinstance(wrapper, cst.Call) and name_of(wrapper.func) == SAMPLER_SHARD
    return shard.arguments is None and called


def said_state_reads(data: LoaderBatchSize, nodes: ModuleNodes, shards: int) -> None:
    """DP104: `x.sampler.state_dict()` in a module that shards `shards` loaders through
    their own sampler (or batch sampler): the shard answers with the user's sampler's
    (`DdpBatchShard.__getattr__`), whose position counts what the shard has drawn ahead
    (a pass's first len() items at once), not what this rank trained: a resumed run
    skips. The training is right; only a resume reads it, so it is said, at the read."""
    if not shards:
        return
    for call in nodes.of(cst.Call):
        func = call.func
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value == "state_dict"
            and isinstance(func.value, cst.Attribute)
            and func.value.attr.value in ("sampler", "batch_sampler")
        ):
            data.warn(
                call,
                "DP104",
                f"`{data.code(call)}` reads the state of a sampler this module shards "
                f"({SAMPLER_SHARD}/{BATCH_SHARD}): it says where the drawing stands, a pass "
                "drawn ahead, not what this rank trained; a run resumed from it skips",
            )


def plan_batch_shard(
    data: LoaderBatchSize, call: cst.Call, key: str, args: dict[str, int], label: str
) -> ShardEdit | str:
    """The rewrite of a loader with `key` (sampler or batch_sampler) of its own, or why the
    shape cannot be kept (DP009's detail). `data` is the data pass."""
    sampler = call.args[args[key]].value
    if any(a.star == "**" for a in call.args) or not never_none(data, sampler):
        # a sampler that may be None (`sampler = None` unless a flag builds one, beside
        # `shuffle=sampler is None`): which loader it is is known at run time only
        return _at_run_time(data, call, key, args, label)
    shuffle = call.args[args["shuffle"]].value if "shuffle" in args else None
    if (
        shuffle is not None
        and not is_false(shuffle)
        # `shuffle=sampler is None`: False whenever there is a sampler
        and not (
            isinstance(shuffle, cst.Comparison) and data.code(shuffle.left) == data.code(sampler)
        )
    ):
        return f"{key}={data.code(sampler)} beside shuffle= (DataLoader rejects both)"
    if EVAL_NAME.search(label):
        return _evaluation_named(data, key, sampler, label)
    if key == "batch_sampler":
        wrapper = call_named(BATCH_SHARD, cst.Arg(sampler.deep_clone()))
        data.state.helpers.update(HELPERS)
        return ShardEdit(args[key], wrapper, ())
    per_rank: cst.BaseExpression = cst.Integer("1")
    if "batch_size" in args:
        value = call.args[args["batch_size"]].value
        if isinstance(value, cst.Name) and value.value == "None":
            return f"{key}={data.code(sampler)} with batch_size=None"
        expression = per_rank_batch(data, value)
        if expression is None:
            return f"{key}={data.code(sampler)}: batch_size={data.code(value)} not understood"
        per_rank = expression
    wrapper_args = [cst.Arg(sampler.deep_clone()), cst.Arg(per_rank.deep_clone())]
    if "drop_last" in args:
        wrapper_args.append(keyword("drop_last", call.args[args["drop_last"]].value.deep_clone()))
    wrapper = call_named(SAMPLER_SHARD, *wrapper_args)
    data.state.helpers.update(HELPERS | {"sampler_shard"})
    batch = (args["batch_size"], per_rank) if "batch_size" in args else None
    return ShardEdit(args[key], wrapper, (), batch=batch)


def _evaluation_named(
    data: LoaderBatchSize, key: str, sampler: cst.BaseExpression, label: str
) -> str:
    """DP009's reason for a loader left whole by its name (EVAL_NAME): what the name says,
    not what every use is (chenxin061/pdarts@b880e87's `valid_queue` is also the
    architecture step's training data, round 14 v3-F)."""
    return f"{key}={data.code(sampler)} of {label}, whose name says an evaluation loader"


def never_none(data: LoaderBatchSize, value: cst.BaseExpression, depth: int = 0) -> bool:
    """`value` is proved never None: a call (a sampler's constructor), an `a if c else b`
    both of whose branches are, or a name every binding of which is. A name also bound to
    None, a parameter, an attribute: not proved (YyzHarry/imbalanced-semi-self's
    `train_sampler = None`, an ImbalancedDatasetSampler only with `--train_rule Resample`,
    beside `shuffle=(train_sampler is None)`: DdpSamplerShard(None) made the loader raise
    "sampler option is mutually exclusive with shuffle")."""
    if isinstance(value, cst.Call):
        return True
    if isinstance(value, cst.IfExp):
        return never_none(data, value.body, depth) and never_none(data, value.orelse, depth)
    if not isinstance(value, cst.Name) or depth > 4:
        return False
    referents = data.referents(value)
    return bool(referents) and all(
        isinstance(r.node, cst.Name)
        and (bound := assigned_value(r.node, data)) is not None
        and never_none(data, bound, depth + 1)
        for r in referents
    )


def per_rank_batch(data: LoaderBatchSize, value: cst.BaseExpression) -> cst.BaseExpression | None:
    """The per-rank batch of a loader's `batch_size=value`, by the data pass's policy."""
    if isinstance(value, cst.Call) and name_of(value.func) == "ddp_per_rank_batch":
        return value.deep_clone()
    stripped = data._strip_gpu_count(value)
    if stripped is not None:
        return stripped
    if any(data._is_gpu_count(n) for n in walk(value)):
        return None
    if data.state.options.per_process_batch:
        return value.deep_clone()
    data.state.helpers.add("per_rank_batch")
    said_undividable_batch(data, value)
    return call_named("ddp_per_rank_batch", cst.Arg(value.deep_clone()))


def _at_run_time(
    data: LoaderBatchSize, call: cst.Call, key: str, args: dict[str, int], label: str
) -> ShardEdit | str:
    """Arguments passed with ** (victoresque/pytorch-template's and pytorch-segmentation's
    `super().__init__(sampler=self.sampler, **self.init_kwargs)`): what they hold is known
    at run time only, so the call gets `**ddp_loader_arguments(...)` of all of them."""
    sampler = call.args[args[key]].value
    if EVAL_NAME.search(label):
        return _evaluation_named(data, key, sampler, label)
    names = {index: name for name, index in args.items()}
    converted: list[cst.Arg] = []
    for index, arg in enumerate(call.args):
        if arg.star == "*":
            return f"{key}={data.code(sampler)} beside * arguments"
        if arg.star == "**":
            converted.append(cst.Arg(arg.value.deep_clone(), star="**"))
        elif arg.keyword is not None:
            converted.append(keyword(arg.keyword.value, arg.value.deep_clone()))
        elif index in names:
            converted.append(keyword(names[index], arg.value.deep_clone()))
        else:
            return f"{key}={data.code(sampler)}: arguments by position past batch_sampler"
    if data.state.options.per_process_batch:
        converted.insert(0, keyword("per_process_batch", cst.Name("True")))
    data.state.helpers.update(
        {
            "loader_arguments",
            "batch_shard",
            "sampler_shard",
            "rank_slice",
            "same_random",
            "rank0_value",
            "per_rank_batch",
            "distributed_sampler",
        }
    )
    return ShardEdit(
        -1, call_named("ddp_loader_arguments"), (), call_named("ddp_loader_arguments", *converted)
    )
