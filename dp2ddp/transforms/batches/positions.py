"""Positions read in a batch a sampler of the program's own composed (DP082).

DataParallel scattered each batch in contiguous chunks, one per GPU, and gathered the
outputs: the code after the model call (losses, slices, asserts) ran on the whole batch.
The data pass keeps the scatter's chunks for a loader with a sampler or batch sampler of
the program's own (DdpBatchShard, DdpSamplerShard: every rank draws the same batch and
keeps its contiguous part), so every sample is trained on once; but the code after the
model call now runs on one rank's part. Where the sampler composes its batches by position
(a two-stream sampler: the labeled indices first, then the unlabeled ones, as in
CuriousAI/mean-teacher@546348f), a position read in the batch (`out[:labeled_bs]` for the
supervised loss, `out[labeled_bs:]` for the consistency loss) selects other samples on each
rank: rank 1's first rows are unlabeled ones, given the supervised loss, silently. Nothing
here can show what the sampler's positions mean, so a training loop over such a loader that
reads rows of the batch or of the model's output by position (a slice with a bound along
the batch dim) gets DP082 at the first such read, naming the loader. A whole-row slice
(`out[:, 0]`) and an item of a tuple output (`out[0]`) are no positions of the batch.
A loader another module of the program builds with such a sampler and returns (a factory's
`DataLoader(trainset, batch_sampler=PairBatchSampler(...))`, alinlab/cs-kd@b447f25, stop 52
v2-A) is told to this module by that module's migration (LoaderExport.composed, data/
imported.py): a loop over it here is read the same way.

What is followed: the loop's targets (the enumerate counter left out) and the wrapped
model's outputs, then the names the loop body binds from them (`logit1, logit2 =
model_out`, `t = target.cuda()`), in order. The loop's iterable is resolved to the loaders
of the module; a loader given as an argument (`train(train_loader, ...)`) that cannot be
resolved is taken to be the module's shard-wrapped one where the module has one (at worst a
warning for a loader sharded otherwise).
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.flow import view
from dp2ddp.result import LoaderExport
from dp2ddp.transforms._support.names import SHARD_FLAG
from dp2ddp.transforms._support.nodes import ModuleNodes, calls_model, name_of, target_names, walk
from dp2ddp.transforms.batches.field_lists import (
    collate_returns_fields,
    moving_comprehension,
    whole_batch,
)
from dp2ddp.transforms.batches.proof import BatchProof

#: The data pass's shard helpers (templates/helpers/batch_shard.py.j2), by name: what it
#: wrote in the loader, read back here (a pass does not import another).
_SHARDS = ("DdpBatchShard", "DdpSamplerShard")


class BatchPositions(BatchProof):
    """DP082: see the module docstring."""

    def _warn_batch_positions(self, nodes: ModuleNodes) -> None:
        if self._dim != 0 or self._module is None:
            return
        shards = [call for call in self._loader_calls if self._shard_of(call) is not None]
        composed = tuple(e for e in self.state.loaders.exported if e.composed)
        if not shards and not composed:
            return
        module = self._module
        seen: set[cst.CSTNode] = set()
        for call in nodes.of(cst.Call):
            if not calls_model(call, self._models):
                continue
            loop = self._training_loop(lambda: view(module), call)
            if not isinstance(loop, cst.For) or loop in seen:
                continue
            loader = self._sharded_source(loop, shards) if shards else None
            export = self._composed_source(loop, composed) if loader is None else None
            if loader is None and export is None:
                continue
            seen.add(loop)
            reads = self._position_reads(loop, call)
            if not reads:
                continue
            if export is not None:
                kept = (
                    f"the loader {export.module}.{export.name}() returns keeps a contiguous "
                    f"part of each batch of {export.composed} on each rank"
                )
            else:
                assert loader is not None
                shard = self._shard_of(loader)
                assert shard is not None
                at = f" at {self.input_position(loader)[0]}"  # the user's line, not the pass's
                kept = (
                    f"the loader{at} keeps a contiguous part of each batch of "
                    f"{self.code(shard)} on each rank"
                )
            shown = ", ".join(f"`{self.code(r)}`" for r in reads[:3])
            more = f" and {len(reads) - 3} more" if len(reads) > 3 else ""
            self.warn(
                reads[0],
                "DP082",
                f"{shown}{more} read rows of the batch by position; {kept}, and this "
                "code ran on the whole gathered batch in DataParallel: not proved that the "
                "positions select the same samples in a rank's part",
            )

    def _composed_source(
        self, loop: cst.For, composed: tuple[LoaderExport, ...]
    ) -> LoaderExport | None:
        """The export (another module's loader keeping the program's own sampler in a
        shard helper: data/imported.py `_export_composed`) the loop iterates, else None."""
        for source in self._loop_sources(loop):
            for origin in self._origins(source, (), 0, attributes=True):
                found = next((e for e in composed if self._is_exported(origin, (e,))), None)
                if found is not None:
                    return found
        return None

    def _shard_of(self, loader: cst.Call) -> cst.BaseExpression | None:
        """The sampler a shard helper wraps in the loader's `sampler=`/`batch_sampler=`
        (also where a factory's flag picks it: `DdpBatchShard(s) if ddp_shard else s`)."""
        for arg in loader.args:
            value = arg.value
            if isinstance(value, cst.IfExp) and name_of(value.test) == SHARD_FLAG:
                value = value.body
            if (
                arg.keyword is not None
                and arg.keyword.value in ("sampler", "batch_sampler")
                and isinstance(value, cst.Call)
                and name_of(value.func) in _SHARDS
                and value.args
            ):
                return value.args[0].value
        return None

    def _sharded_source(self, loop: cst.For, shards: list[cst.Call]) -> cst.Call | None:
        """The shard-wrapped loader the loop iterates: resolved, or (a loader the module
        cannot resolve, given as an argument) the module's first shard-wrapped one."""
        sources = self._loop_sources(loop)
        resolved = [c for u in sources for c, _ in self._resolve(u, self._loader_calls, 0)]
        if resolved:
            return next((c for c in resolved if c in shards), None)
        if any(self._is_loader(u) for u in sources):
            return shards[0]
        return None

    def _position_names(self, loop: cst.For, call: cst.Call) -> set[str]:
        """The loop's batch names, the model's output names, and the names the loop body
        binds from them, in order (a reduction, `len(x)` or `.item()`, left out)."""
        tracked = _batch_names(loop)
        assign = self.parent(call)
        if isinstance(assign, cst.Assign) and assign.value is call:
            tracked |= {n for t in assign.targets for n in target_names(t.target)}
        for node in walk(loop.body):  # names bound from them, in order
            if isinstance(node, cst.Assign) and any(
                isinstance(n, cst.Name) and n.value in tracked for n in walk(node.value)
            ):
                if _reduces(node.value):
                    continue
                for target in node.targets:
                    tracked |= target_names(target.target)
        return tracked

    def _position_reads(self, loop: cst.For, call: cst.Call) -> list[cst.Subscript]:
        """Slices with a bound along dim 0 of the loop's batch, the model's output, or a
        name the loop body binds from them, in source order."""
        tracked = self._position_names(loop, call)
        lists = self._field_lists(loop)
        moves = self.state.hints.device_moves
        pending: list[tuple[set[int], set[str], bool]] = []  # bindings whose value is walked
        reads: list[cst.Subscript] = []
        for node in walk(loop.body):
            for inside, bound, listed in [p for p in pending if id(node) not in p[0]]:
                # in order: a binding ends (or, by a moving comprehension, starts) a list
                lists = (lists - bound) | (bound if listed else set())
                pending.remove((inside, bound, listed))
            if isinstance(node, cst.Assign):
                pending.append(
                    (
                        {id(n) for n in walk(node)},
                        {n for t in node.targets for n in target_names(t.target)},
                        moving_comprehension(node.value, moves),
                    )
                )
            if not isinstance(node, cst.Subscript) or not node.slice:
                continue
            root = node.value
            while isinstance(root, cst.Attribute):  # `target_var.data[:k]`
                root = root.value
            if not (isinstance(root, cst.Name) and root.value in tracked):
                continue
            if node.value is root and root.value in lists:
                continue  # stop 59 s2: fields of a list of them (batches/field_lists.py)
            first = node.slice[0].slice
            if isinstance(first, cst.Slice) and (
                first.lower is not None or first.upper is not None or first.step is not None
            ):
                reads.append(node)
        return reads

    def _field_lists(self, loop: cst.For) -> set[str]:
        """The loop's whole item where the loader's collate returns a list of fields
        (field_lists.collate_returns_fields): `{"batch"}` of `for batch in loader`."""
        target: cst.BaseExpression = loop.target
        if isinstance(target, cst.Tuple) and len(target.elements) == 2:
            target = target.elements[1].value
        if not isinstance(target, cst.Name) or not whole_batch(loop, target):
            return set()
        loaders = [
            c for u in self._loop_sources(loop) for c, _ in self._resolve(u, self._loader_calls, 0)
        ]
        module = self._module
        if module is None or not collate_returns_fields(module, loaders):
            return set()
        return {target.value}


def _batch_names(loop: cst.For) -> set[str]:
    """The loop's targets, less enumerate's counter (`for i, (x, y) in enumerate(loader)`)."""
    target = loop.target
    if (
        isinstance(loop.iter, cst.Call)
        and name_of(loop.iter.func) == "enumerate"
        and isinstance(target, (cst.Tuple, cst.List))
        and len(target.elements) == 2
    ):
        return target_names(target.elements[1].value)
    return target_names(target)


def _reduces(value: cst.BaseExpression) -> bool:
    """A number from the batch, not rows of it (`n = len(target)`, `x.size(0)`, `.item()`)."""
    return isinstance(value, cst.Call) and name_of(value.func) in (
        "len",
        "size",
        "item",
        "sum",
        "mean",
        "numel",
    )
