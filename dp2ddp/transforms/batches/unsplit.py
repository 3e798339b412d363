"""What a batch the proof leaves unsplit gets on each rank, as DP047 says it.

A batch reaching the model that the proof (batches/proof.py) cannot follow to a loader or a
split is not split where it comes from another module's code: there the data may already
be this rank's part, and a split would cut it again. DP047 says what each rank then gets:

* taken by another module's function from a loader it holds (`batches.get_batch()` of a
  loader class: ProgramHints.batch_fetchers): that module may shard its loader;
* drawn through an object built here from a loader this module shards (`train_iterator =
  Iterator(train_loader)`, `train_iterator.get()` of a class of another module): where the
  object gives that loader's batches each rank gets its part; what it really gives is not
  followed (shjo-april/PuzzleCAM@659b4c1 train_classification_with_puzzle.py:320, stop 52
  w1: said "every rank gets all of it" of a loader that is sharded);
* else every rank gets all of it.

A batch whose walk passes through a call of a method another module exports as taking the
batches of the loaders its class holds and shards (LoaderExport.taker, data/batch_takers.py:
clovaai's `train_dataset.get_batch()`) is said as such: where the method returns those
batches each rank gets its part; what it returns is not followed (a list filled by
`.append()` then `torch.cat`). A value from a call not entered given such a batch
(`converter.encode(labels)`) is said as that call's. Before, DP047 said "every rank gets all
of it", the walk going on through the constructor's argument `opt` to `string.printable`
(v1-C of stop 53, roatienza/deep-text-recognition-benchmark@fb06d18 train.py:173).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import DefUse, Origin, code, origins, view
from dp2ddp.transforms._support.names import DATALOADER
from dp2ddp.transforms._support.nodes import name_of
from dp2ddp.transforms._support.qualified import told_name
from dp2ddp.transforms.batches.yielded import sharded_here, yielded_share

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable

    from dp2ddp.transforms.batches.proof import BatchProof

#: The helpers the data pass wraps a program's own sampler in (data/batch_shard.py).
_SHARDS = ("DdpBatchShard", "DdpSamplerShard")


def unsplit_effect(proof: BatchProof, flow: DefUse, origin: Origin) -> str:
    """What each rank gets of a batch from `origin` left unsplit (see the docstring)."""
    if fetched_elsewhere(proof, origin):
        return (
            "taken by another module's function from a loader it may shard: not split here "
            "(a second split cuts this rank's part again); where that loader is whole, every "
            "rank gets all of it"
        )
    taken = taken_by_sharded_class(proof, origin)
    if taken is not None:
        return (
            f"{taken} draws its batches with next() from the loaders its class holds, sharded "
            "by the module that builds them: where it returns those batches each rank gets "
            "its part (not split here: a second split would cut it again); what it returns "
            "is not followed"
        )
    drawn = _drawn_through(proof, flow, origin)
    if drawn is not None:
        receiver, built, loader = drawn
        return (
            f"{receiver} is {built}, an object given {loader}, which is sharded here: where "
            f"{code(origin.node)} gives that loader's batches, each rank gets its part (not "
            "split here: a second split would cut it again); what it gives is not followed: "
            "anything else, every rank gets all of it"
        )
    given = _given_taken_batch(proof, flow, origin)
    if given is not None:
        call, argument = given
        return (
            f"{call} is a call not read here, given {argument}, this rank's share of the "
            "batches its class takes from its sharded loaders: whether it returns this "
            "rank's rows (not the whole batch, nor rows of other data) is not proved"
        )
    return "every rank gets all of it"


def _given_taken_batch(proof: BatchProof, flow: DefUse, origin: Origin) -> tuple[str, str] | None:
    """(the call, its argument) where the walk passes through a method call not entered
    (`converter.encode(labels)`) given a value taken_by_sharded_class (`labels` of
    `train_dataset.get_batch()`): its result is per rank as far as that argument is (v1-C
    of stop 53: the walk went on through `converter` to the alphabet, "every rank gets all
    of it")."""
    if not any(e.taker for e in proof.state.loaders.exported):
        return None
    for step in origin.path:
        if not step.what.endswith(")"):
            continue
        node: cst.CSTNode | None = step.node
        for _ in range(3):  # the call holding the step's node
            if node is None or isinstance(node, cst.Call):
                break
            node = proof.parent(node)
        if not isinstance(node, cst.Call) or code(node.func) != step.what.partition("(")[0]:
            continue
        for argument in node.args:
            if any(
                taken_by_sharded_class(proof, found) is not None
                for found in origins(flow, argument.value, lambda _: False)
            ):
                return code(node.func) + "()", code(argument.value)
    return None


def taken_by_sharded_class(proof: BatchProof, origin: Origin) -> str | None:
    """The walk to `origin` passes through `C(...)`, a class another module exports as taking
    its sharded loaders' batches with its method `m` (matched by qualified name), then on
    through a call `obj.m()` (the step `what`, as fetched_elsewhere reads it): the value is
    what `m` returns: the call as the walk wrote it; else None."""
    takers = tuple(e for e in proof.state.loaders.exported if e.taker)
    methods: set[str] = set()
    for step in origin.path if takers else ():
        node = step.node
        if isinstance(node, cst.Call):
            built = proof._call_origin(node, None, None)
            methods |= {e.taker for e in takers if proof._is_exported(built, (e,), takers=True)}
        elif methods and step.what.endswith(")"):
            if step.what.partition("(")[0].rpartition(".")[2] in methods:
                return step.what
    return None


def taken_elsewhere(proof: BatchProof, flow: DefUse, origin: Origin) -> bool:
    """A batch another module's code may already have made this rank's part, so the proof
    says it (DP047) and never splits it: fetched_elsewhere, or a walk through the method of
    a class taking its sharded loaders' batches (taken_by_sharded_class), or through a call
    not entered given such a batch (`converter.encode(labels)`: _given_taken_batch). A
    split at the binding cut this rank's part again: JaidedAI/EasyOCR@c4f3cd7
    trainer/train.py:205, `text[:, :-1]` of `text, length = converter.encode(labels)`
    split in two while the images stayed this rank's 4, every rank stopped at step 1
    ("cannot be split as DataParallel split them"; v2-A of stop 62)."""
    return (
        fetched_elsewhere(proof, origin)
        or taken_by_sharded_class(proof, origin) is not None
        or _given_taken_batch(proof, flow, origin) is not None
    )


def say_target(
    proof: BatchProof,
    flow: DefUse,
    call: cst.Call,
    value: cst.BaseExpression,
    origin: Origin,
    taken: bool,
) -> None:
    """DP047 for a target compared with `call`'s output that the proof leaves whole: one
    taken_elsewhere gets what each rank then has (unsplit_effect), else no split on its
    path was found."""
    proof._unproved.add("DP047")
    effect = unsplit_effect(proof, flow, origin) if taken else "it cannot be split as the batch is"
    proof.warn(
        call,
        "DP047",
        f"the target {proof.code(value)} compared with {proof.code(call)}'s output comes "
        f"from {code(origin.node)} ({origin.kind}): {origin.flow(proof.input_position)}; "
        f"{effect}",
    )


def fetched_elsewhere(proof: BatchProof, origin: Origin) -> bool:
    """A batch taken through a function of another module that returns `next()` of a
    loader it holds (`batches.get_batch()` of a loader class: ProgramHints.
    batch_fetchers), a walk that ends at the object's class (`Batches(4)`, not entered)
    or its import: that module may shard its loader, and a split here would cut this
    rank's part again (each rank training on a quarter: v2-B's fixture of stop 43);
    said (DP047), not split. The walk records the method call as the step `what`."""
    fetchers = proof.state.hints.batch_fetchers
    return (
        bool(fetchers)
        and origin.kind in ("import", "call")
        and any(
            step.what.endswith(")") and step.what.partition("(")[0].rpartition(".")[2] in fetchers
            for step in origin.path
        )
    )


def iterated_share(proof: BatchProof, flow: DefUse, origin: Origin) -> bool:
    """The batch is `recv.m()` where every binding of `recv` is a call of a class whose
    method `m` gives the batches of its constructor's k-th parameter (another module's
    class: ProgramHints.batch_fetchers' `Class.m@k`, analysis/per_rank.py), given as the
    k-th argument a DataLoader this module sharded: this rank's part, as the loader's own
    batches (stop 53 s3, PuzzleCAM's `Iterator(train_loader).get()`: DP047 said it); or an
    item of another module's generator of its sharded loaders' batches (batches/yielded.py)."""
    node, fetchers = origin.node, proof.state.hints.batch_fetchers
    if yielded_share(proof, origin):
        return True  # another module's generator of its sharded loader's batches (stop 54)
    if not (
        fetchers
        and isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and isinstance(node.func.value, cst.Name)
    ):
        return False
    definitions = flow.reaching(node.func.value)
    for definition in definitions:
        built = definition.value
        if not isinstance(built, cst.Call) or definition.element:
            return False
        at = next(
            (
                i
                for i, a in enumerate(built.args)
                if a.keyword is None and not a.star and _sharded_loader(proof, flow, a.value)
            ),
            None,
        )
        if at is None or f"{name_of(built.func)}.{node.func.attr.value}@{at}" not in fetchers:
            return False
    return bool(definitions)


def _drawn_through(proof: BatchProof, flow: DefUse, origin: Origin) -> tuple[str, str, str] | None:
    """(receiver, its binding call, the loader) where the batch is a method's result or
    `next()` of an object each binding of which is a call given a loader the data pass
    sharded here: `train_iterator.get()` of
    `train_iterator = Iterator(train_loader)`."""
    node = origin.node
    if not isinstance(node, cst.Call):
        return None
    receiver: cst.BaseExpression | None = None
    if isinstance(node.func, cst.Attribute):
        receiver = node.func.value
    elif name_of(node.func) == "next" and node.args:
        receiver = node.args[0].value
    if not isinstance(receiver, cst.Name):
        return None
    definitions = flow.reaching(receiver)
    found: tuple[str, str, str] | None = None
    for definition in definitions:
        value = definition.value
        if (
            not isinstance(value, cst.Call)
            or definition.element
            or proof.matches(value.func, DATALOADER)
        ):
            return None
        loader = next((a.value for a in value.args if _sharded_loader(proof, flow, a.value)), None)
        if loader is None:
            return None
        found = found or (receiver.value, code(value), code(loader))
    return found


def _sharded_loader(proof: BatchProof, flow: DefUse, value: cst.BaseExpression) -> bool:
    """`value` is a DataLoader of this module that the data pass sharded."""
    for origin in origins(flow, value):
        node = origin.node
        if origin.selects or not isinstance(node, cst.Call):
            continue
        text = proof.code(node)
        if proof.matches(node.func, DATALOADER) and (
            sharded_here(text) or any(f"{shard}(" in text for shard in _SHARDS)
        ):
            return True
    return False


def method_elsewhere(proof: BatchProof, origin: Origin) -> str | None:
    """The value is what `obj.m()` returns, given no positional argument that carries data
    (`data.get(i)`, `i` a counter: _carries_data; stop 63 s1), `obj` built here
    by `C(...)` of a class another module of the program defines with its own method `m`
    (ProgramHints.class_methods) that takes no sharded loader's batches (not
    taken_elsewhere): the walk does not enter that module's code and went on to the
    construction, the same at every step; what `m` returns from the object's own state (a
    batch cut from arrays it holds, by a counter it keeps) is not followed, so nothing
    proves it the same at every step nor this rank's part. A batch, split on its path or
    said (DP047), where it was "ok" before and every rank trained on the whole batch in
    silence (v2-B of stop 62: `x, y = data.get_batch()`; the same class in the entry's own
    module is followed and split). The call as the walk wrote it; else None."""
    methods, node = proof.state.hints.class_methods, origin.node
    if not methods or origin.kind != "call" or not isinstance(node, cst.Call):
        return None
    classes = proof.qualified_names(node.func)
    for step in origin.path:
        call = _holding_call(proof, step.node)
        if not (
            isinstance(call, cst.Call)
            and isinstance(call.func, cst.Attribute)
            and call.func.value is step.node
            and not any(a.keyword is None and _carries_data(proof, a.value) for a in call.args)
        ):
            continue
        method = call.func.attr.value
        if _defined_elsewhere(classes, method, methods) or _made_elsewhere(
            classes, method, methods
        ):
            taken = fetched_elsewhere(proof, origin) or taken_by_sharded_class(proof, origin)
            return None if taken else step.what
    return None


def _made_elsewhere(classes: Iterable[str], method: str, methods: Collection[str]) -> bool:
    """`obj` made by a call of no class the program defines (a factory of another module:
    `create_dataset(...)` returning `TrainSet(...)`; round 33, huanghoujing/AlignedReID-Re-
    Production-Pytorch@2e2d454) whose `m` a class of the program defines: the object's class
    is not known here, and what `m` returns from its state is not followed either."""
    named = [c for c in classes if "." in c and not c.startswith("builtins.")]
    return (
        bool(named)
        and not any(m.startswith(f"{c}.") for c in named for m in methods)
        and any(m.endswith(f".{method}") for m in methods)
    )


def handed_elsewhere(proof: BatchProof, origin: Origin) -> bool:
    """The walk reaches the value as an argument of a method of another module's class
    (`x = device.data_to_device(x)`, `device = Device(...)`: ProgramHints.class_methods),
    which the walk reads as shaping the result (a dtype, a dim) and would call "ok": that
    method is not read here, and may return (a transform of) its argument, the batch. So
    its argument is followed as data (v2-B's open half of stop 62; stop 63 s1): every
    selecting step of the path is such an argument."""
    methods = proof.state.hints.class_methods
    if not methods or proof._module is None:
        return False
    flow = view(proof._module)
    found = False
    for step in origin.path:
        if not (step.index or step.shapes):
            continue
        call = _holding_call(proof, step.node)
        if step.index or not (
            isinstance(call, cst.Call)
            and isinstance(call.func, cst.Attribute)
            and any(a.value is step.node and a.keyword is None for a in call.args)
        ):
            return False
        built = [o.node for o in origins(flow, call.func.value) if o.kind == "call"]
        classes = {
            c for b in built if isinstance(b, cst.Call) for c in proof.qualified_names(b.func)
        }
        if not _defined_elsewhere(classes, call.func.attr.value, methods):
            return False
        found = True
    return found


def _holding_call(proof: BatchProof, node: cst.CSTNode) -> cst.CSTNode | None:
    """The node two levels up from a step's node: the call of which it is the receiver
    (`obj` of `obj.m(...)`: Attribute, then Call) or an argument (Arg, then Call); the
    caller checks which (method_elsewhere, handed_elsewhere)."""
    return proof.parent(proof.parent(node) or node)


def _defined_elsewhere(classes: Iterable[str], method: str, methods: Collection[str]) -> bool:
    """Whether `method` is a method of one of `classes` another module of the program
    defines (ProgramHints.class_methods, qualified names)."""
    return bool(told_name((f"{c}.{method}" for c in classes), methods))


def _carries_data(proof: BatchProof, value: cst.BaseExpression) -> bool:
    """An argument that may hand the method data (`device.data_to_device(x)`: what it
    returns may be a transform of it, handed_elsewhere): not one every origin of which is a
    literal, a selection (a key, an index) or a count (`range(n)`'s items, `len(...)`):
    `data.get(i)` in `for i in range(steps)` is handed a position, so what it returns comes
    from the object's own state."""
    if proof._module is None:
        return True
    for origin in origins(view(proof._module), value):
        node = origin.node
        if origin.selects or origin.kind == "constant":
            continue
        if isinstance(node, cst.Call) and proof.qualified_names(node.func) & _COUNTS:
            continue
        return True
    return False


_COUNTS = frozenset({"builtins.range", "builtins.len", "builtins.int", "builtins.enumerate"})
