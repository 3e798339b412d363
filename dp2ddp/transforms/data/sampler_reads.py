"""DP143: the program reads the sampler of a loader whose sampler the migration replaced.

The data pass gives a sharded loader a sampler of its own (DistributedSampler,
DdpDistributedSampler, ddp_eval_sampler in place of the `shuffle=` flag's
SequentialSampler/RandomSampler or of a shuffle-only sampler; DdpSamplerShard/DdpBatchShard
around the program's own sampler or batch sampler). Code of the program that reads the
loader's `sampler` (or `batch_sampler`) back then reads the migration's object, not the
one DataParallel's run had: xu-ji/IIC@b7602b7 code/utils/cluster/data.py:_create_dataloaders
builds its loaders with `shuffle=False` and asserts `isinstance(train_dataloader.sampler,
SequentialSampler)` right after; migrated, the assert stopped every rank and nothing said
why. A read is found through the data pass's own def-use resolution of the loader
(`_resolve`: the bindings, parameters and returns the loops' planning follows), so any
spelling that reaches the replaced loader is seen. Kept out: `.set_epoch(...)` (what the
replacement is for), and of a shard any read but a type test or a count: its attributes
and methods are the program's sampler's (`__getattr__`; `.state_dict()` is DP104's).
`len(loader.sampler)` is said as a count: this rank's share now, wherever the program
divides or prints by it.
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.transforms._support.nodes import ModuleNodes, is_false, name_of
from dp2ddp.transforms.data.batch_shard import is_sampler_shard, said_state_reads
from dp2ddp.transforms.data.batch_size import LoaderBatchSize
from dp2ddp.transforms.data.plan import Loader

KEYS = ("sampler", "batch_sampler")
#: Reads of the replaced sampler that keep their meaning or are said elsewhere.
KEPT = frozenset({"set_epoch"})
SHARD_STATE = frozenset({"state_dict", "load_state_dict"})  # DP104's, on a shard
TYPE_TESTS = frozenset({"isinstance", "type"})


def said_sampler_reads(
    data: LoaderBatchSize, nodes: ModuleNodes, sampler_sharded: dict[cst.Call, Loader]
) -> None:
    """DP104 (a shard's state read) and DP143 (any other read of a replaced sampler)."""
    said_state_reads(data, nodes, len(data._shards))
    replaced: dict[cst.Call, Loader] = {
        call: loader for call, loader in data._loaders.items() if call in data._edits
    }
    replaced.update(sampler_sharded)
    if not replaced:
        return
    for read in nodes.of(cst.Attribute):
        if read.attr.value not in KEYS:
            continue
        calls = [c for c, _ in data._resolve(read.value, replaced, 0) if c in replaced]
        loader = next(
            (replaced[c] for c in calls if _key(data, replaced[c]) == read.attr.value), None
        )
        if loader is None or _kept(data, read, loader):
            continue
        if loader.call in data._shards and not (_type_test(data, read) or _counted(data, read)):
            continue  # the shard hands other reads on to the program's own sampler
        data.warn(read, "DP143", _detail(data, read, loader))


def _key(data: LoaderBatchSize, loader: Loader) -> str:
    """The attribute of the loader whose object the migration replaced."""
    shard = data._shards.get(loader.call)
    return "sampler" if shard is None or is_sampler_shard(shard) else "batch_sampler"


def _kept(data: LoaderBatchSize, read: cst.Attribute, loader: Loader) -> bool:
    parent = data.parent(read)
    if isinstance(parent, cst.Attribute) and parent.value is read:
        if parent.attr.value in KEPT:
            return True
        return parent.attr.value in SHARD_STATE and loader.call in data._shards
    return False


def _counted(data: LoaderBatchSize, read: cst.Attribute) -> cst.Call | None:
    """The `len(...)` call counting `read`'s items."""
    parent = data.parent(read)
    call = data.parent(parent) if isinstance(parent, cst.Arg) else None
    if isinstance(call, cst.Call) and name_of(call.func) == "len":
        return call
    return None


def _type_test(data: LoaderBatchSize, read: cst.Attribute) -> cst.CSTNode | None:
    """The `isinstance(...)`/`type(...)` call or `.__class__` read testing `read`'s class."""
    parent = data.parent(read)
    if isinstance(parent, cst.Attribute) and parent.attr.value == "__class__":
        return parent
    if isinstance(parent, cst.Arg):
        call = data.parent(parent)
        if (
            isinstance(call, cst.Call)
            and name_of(call.func) in TYPE_TESTS
            and call.args
            and call.args[0] is parent
        ):
            return call
    return None


def _new(data: LoaderBatchSize, loader: Loader) -> str:
    shard = data._shards.get(loader.call)
    if shard is not None:
        wrapper = shard.wrapper
        return (
            f"`{name_of(wrapper.func) if isinstance(wrapper, cst.Call) else 'a shard'}` around it"
        )
    edit = data._edits[loader.call]
    sampler = edit.sampler
    if sampler is None and loader.own is not None:
        sampler = data._samplers.get(loader.own.call)
    name = name_of(sampler.func) if isinstance(sampler, cst.Call) else None
    return f"a `{name or 'DistributedSampler'}`"


def _original(data: LoaderBatchSize, loader: Loader, key: str) -> str:
    args = loader.call.args
    if key in loader.args:
        return f"`{_shown(data, args[loader.args[key]].value)}`"
    if loader.own is not None:
        return f"`{_shown(data, loader.own.call)}`"
    shuffle = args[loader.args["shuffle"]].value if "shuffle" in loader.args else None
    if shuffle is None or is_false(shuffle):
        return "the SequentialSampler DataLoader builds without shuffle"
    if isinstance(shuffle, cst.Name) and shuffle.value == "True":
        return "the RandomSampler DataLoader builds for shuffle=True"
    return (
        f"the sampler DataLoader builds from shuffle={_shown(data, shuffle)} (a "
        "SequentialSampler where it is false, a RandomSampler where true)"
    )


def _shown(data: LoaderBatchSize, node: cst.CSTNode) -> str:
    """`node`'s code on one line, without the parentheses around it."""
    if isinstance(node, (cst.Call, cst.Attribute, cst.Name)) and node.lpar:
        node = node.with_changes(lpar=[], rpar=[])
    return " ".join(data.code(node).split())


def _detail(data: LoaderBatchSize, read: cst.Attribute, loader: Loader) -> str:
    key = read.attr.value
    label = data.code(loader.binding) if loader.binding is not None else "the loader"
    line = data.input_position(loader.call)[0]
    was, now = _original(data, loader, key), _new(data, loader)
    if loader.call in data._shards:
        now = f"{now} (the program's sampler wrapped by the migration at line {line})"
    else:
        now = f"{now} (the migration's, at line {line})"
    test = _type_test(data, read)
    if test is not None:
        return (
            f"`{_shown(data, test)}` tests the class of {label}'s {key}, which is now {now}, "
            f"not {was}: the test no longer holds what it held in DataParallel's run (an "
            "assert on it stops every rank)"
        )
    counted = _counted(data, read)
    if counted is not None:
        return (
            f"`{_shown(data, counted)}` counts {label}'s {key}, which is now {now}, not {was}: "
            "this rank's share of the samples (the original's count divided by the ranks), "
            "wherever the program prints it or divides by it"
        )
    return (
        f"`{_shown(data, read)}` is now {now}, not {was}: what the program reads of it "
        "(attributes, methods, state) is that object's"
    )
