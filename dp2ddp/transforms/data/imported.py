"""Loaders that cross a module boundary in a program (dp2ddp/program/).

A loader factory (`dataset.get(...)` in a library) builds a training loader whose epoch loop
is in the entry. Each module is migrated on its own, so the two sides meet here:

* The library shards the loader as any training loader; finding no epoch loop, its sampler
  advances its epoch by itself (DP011). It also *exports* the loader (state.exports): the
  top-level function that returns it, and where in what it returns, or the module-level name
  bound to it. A function's returns are read as shapes: a tuple or list literal, a list
  built by `ds.append(loader)` calls (pytorch-playground's `ds = []` ... `ds.append(...)`),
  either branch of `ds[0] if len(ds) == 1 else ds`. An `a, b = get(...)` of two items takes
  item 0 from every shape of two items; anything the shapes cannot tell blocks the export.
* The entry, told the exports (state.loaders.exported), finds its loops over them (through
  names, `enumerate(train_loader)`, calls passing them on, a wrapper `self._get_data(...)`)
  and puts `loader.sampler.set_epoch(epoch)` in the epoch loop around, as for its own
  loaders: an explicit set_epoch decides the self-advancing sampler's next pass.
* A loader returned by a project module discovery could not follow (state.loaders.unfollowed)
  is sharded by no one: a training loop over it gets DP027.
* A loader whose batch sampler of the program's own this module shards (DdpBatchShard) is
  exported for one thing (`batches`, with the sampler as `composed`): the importer's loops
  over it read rows by position after the model call where this module cannot see them
  (DP082, batches/positions.py); no set_epoch is planned for it (its `sampler` has none).
  Its loops' running figures are this rank's share (summed where proved, else DP030).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import view
from dp2ddp.result import LoaderExport
from dp2ddp.transforms._support.nodes import (
    ModuleNodes,
    assigned_value,
    enclosing_class,
    enclosing_function,
    iterated,
    name_of,
    walk,
)
from dp2ddp.transforms.analysis.module_index import argument
from dp2ddp.transforms.analysis.trained_factories import (
    branch_pick,
    looked_up,
    ordered_default,
    picking,
    picks_sharded,
    shuffle_parameter,
)
from dp2ddp.transforms.data.alike_loaders import alike_loaders
from dp2ddp.transforms.data.batch_shard import BATCH_SHARD, ShardEdit, is_sampler_shard
from dp2ddp.transforms.data.export_match import exported_as, prefix_slice, unpacked_alias
from dp2ddp.transforms.data.factory_wrappers import evaluation_slots, export_wrappers
from dp2ddp.transforms.data.flow import MAX_DEPTH, Path, branch_calls
from dp2ddp.transforms.data.handed_beside import handed_beside_training
from dp2ddp.transforms.data.handed_loops import hands_step
from dp2ddp.transforms.data.handoffs import exported_handoffs, handed_on, handed_role
from dp2ddp.transforms.data.loop_takers import next_taken
from dp2ddp.transforms.data.plan import Loader
from dp2ddp.transforms.data.sample_roles import fetched_once
from dp2ddp.transforms.data.set_epoch import LoaderSetEpoch
from dp2ddp.transforms.data.told_steps import trains_in_program
from dp2ddp.transforms.data.unfollowed_returns import (
    warn_unfollowed_loop,
    warn_unfollowed_return,
)

if TYPE_CHECKING:
    from dp2ddp.transforms.data.factory_sites import FactorySites

#: One way a function's return value looks: (arity, the loader call at each position) for a
#: tuple or list; arity None for a single value (its one slot: the loader, or None).
Shape = tuple[int | None, tuple[cst.Call | None, ...]]


class _Unknown(Exception):
    """A return value whose shape cannot be told: nothing of that function is exported."""


@dataclass(frozen=True)
class Origin:
    """Where a value iterated here came from: `binding` of `statement`, bound from `call`
    (item `position` of `arity` when unpacked), reached through the calls of `path`."""

    call: cst.Call | None
    binding: cst.BaseExpression
    statement: cst.BaseStatement | None
    position: int | None
    arity: int | None
    path: Path
    #: the loader is this attribute of what `call` returns (`d = data.create(8)`, then
    #: `d.trainloader`): matched only by an export of that attribute (LoaderExport)
    attribute: str = ""
    #: bound to a prefix of what `call` returns (`make(...)[:2]`): an unpacking of it takes
    #: the item at its position of however many the call returns (export_match.py)
    prefix: bool = False


class LoaderImports(LoaderSetEpoch):
    """Exports of a library's sharded loaders; set_epoch and DP027 in their importers."""

    #: The factories of both kinds of loaders (set by the pass before planning).
    _factory_sites: FactorySites
    #: Loaders sharded through their own sampler, and their rewrites (the pass's).
    _sampler_sharded: dict[cst.Call, Loader]
    _shards: dict[cst.Call, ShardEdit]

    # == library side ===================================================================
    def _export(self, loader: Loader, all_loaders: set[cst.Call], said: bool = True) -> bool:
        """Record how importers reach a training loader this module shards (program mode)
        without an epoch loop of its own; whether it was. `said`: DP135 where the return's
        shape is not followed (a shuffled loader's; not a batch sampler's, told for DP082).
        An unshuffled one no loop here iterates, sharded by its name (`train_dl`), is
        exported too: the importers' loops over each item a call of it returns decide
        (GDSS@24cc490's one factory for the train and the test loader, round 26)."""
        if self.state.program is None or loader.loops:
            return False
        before = len(self.state.exports)
        function = enclosing_function(loader.call, self)
        if function is None:
            if isinstance(loader.binding, cst.Name) and loader.statement is not None:
                if isinstance(self.parent(loader.statement), cst.Module):
                    self.state.exports.append(LoaderExport(loader.binding.value, False))
            return len(self.state.exports) > before
        if not isinstance(self.parent(function), cst.Module):
            self._export_attribute(loader, function)
            return len(self.state.exports) > before  # importers call no method by name
        alike = {loader.call} | alike_loaders(self, loader, function)  # type: ignore[arg-type]
        try:
            shapes = [
                shape
                for node in walk(function.body, skip_scopes=True)
                if isinstance(node, cst.Return) and node.value is not None
                for shape in self._shapes(node.value, function, all_loaders, {}, alike)
            ]
        except _Unknown:
            if said:
                warn_unfollowed_return(self, loader, function)  # DP135
            return False
        name = function.name.value
        shuffle, shuffle_index = shuffle_parameter(
            loader.call, loader.args.get("shuffle"), function
        )
        exported = False
        arities = {arity for arity, _ in shapes}
        for arity in sorted(arities, key=lambda a: -1 if a is None else a):
            same = [slots for a, slots in shapes if a == arity]
            positions = [None] if arity is None else list(range(arity))
            for position in positions:
                index = 0 if position is None else position
                held = [slots[index] for slots in same]
                if not any(c is loader.call for c in held):
                    continue
                export = LoaderExport(name, True, position, arity, "", shuffle, shuffle_index)
                export = replace(export, ordered_default=ordered_default(function, shuffle))
                if not all(c in alike for c in held):  # or a whole one, by a branch: r3-B
                    if arity is not None:
                        continue
                    pick = branch_pick(view(self._module_node), function, loader.call)
                    export = picking(export, pick)
                exported = True
                if export not in self.state.exports:  # a sibling's, alike (below)
                    self.state.exports.append(export)
                    if not export.branched:
                        self._export_bound_names(function, position, arity)
        if exported and None in arities:
            export_wrappers(self, function)  # `return train_loader, val_loader` of its calls
        return exported or len(self.state.exports) > before

    def _export_shard(self, loader: Loader) -> bool:
        """Export a loader sharded through its own sampler (`sampler=RandomSampler(data)` →
        DdpSamplerShard; or at run time, `**ddp_loader_arguments(...)`: round 22, its loss
        over `x.size(0)` doubled, unsaid) as any training loader: importers classify their
        calls of its factory by their loops, an evaluation call builds it whole (v2-E of
        stop 41: dev and test loaders were sharded as training data)."""
        shard = self._shards[loader.call]
        exported = is_sampler_shard(shard) or shard.arguments is not None
        return exported and self._export(loader, self._all_loaders)

    def _export_composed(self, loaders: dict[cst.Call, Loader]) -> None:
        """Tell importers which exported loaders a shard helper keeps the program's own
        sampler in (`composed`), and export a batch sampler's loader for that alone
        (`batches`): a loop over it in the importer reads rows by position after the model
        call where this module cannot see them (alinlab/cs-kd@b447f25: datasets.py's
        `load_dataset` returns `DataLoader(trainset, batch_sampler=PairBatchSampler(...))`,
        train.py's loop trains on `inputs[:batch_size // 2]` and pairs it with the rest,
        stop 52 v2-A)."""
        if self.state.program is None:
            return
        wrappers: dict[cst.Call, cst.BaseExpression] = {}
        for call, shard in self._shards.items():
            wrapper = shard.wrapper.body if isinstance(shard.wrapper, cst.IfExp) else shard.wrapper
            if not is_sampler_shard(shard):
                wrappers[call] = wrapper
        for call in self._all_loaders:  # migrated before: the helper is written already
            given = [a.value for a in call.args if a.keyword and a.keyword.value == "batch_sampler"]
            if given and isinstance(given[0], cst.Call) and name_of(given[0].func) == BATCH_SHARD:
                wrappers.setdefault(call, given[0])
        for call, wrapper in wrappers.items():
            loader = loaders.get(call) or Loader(call, {}, *self._binding(call), None)
            if loader.loops or not isinstance(wrapper, cst.Call) or not wrapper.args:
                continue
            before = len(self.state.exports)
            self._export(loader, self._all_loaders, said=False)
            composed = self.code(wrapper.args[0].value)
            for index in range(before, len(self.state.exports)):
                export = self.state.exports[index]
                self.state.exports[index] = replace(export, composed=composed, batches=True)

    def _export_attribute(self, loader: Loader, method: cst.FunctionDef) -> None:
        """A loader a method of a top-level class binds to `self.<name>` (class C1:
        `self.trainloader = DataLoader(...)` in `Data.__init__`), every assignment of that
        attribute in the class being this loader: importers reach it as the attribute of
        an instance, built by the class or by a top-level function returning only its
        instances (`def create(n): return Data(n)`)."""
        owner = enclosing_class(loader.call, self)
        binding = loader.binding
        if (
            owner is None
            or not isinstance(self.parent(owner), cst.Module)
            or enclosing_function(owner, self) is not None
            or not isinstance(binding, cst.Attribute)
            or not isinstance(binding.value, cst.Name)
            or not method.params.params
            or method.params.params[0].name.value != binding.value.value
        ):
            return
        attribute = binding.attr.value
        values = self._attribute_values(owner, self.code(binding))
        if not values or any(value is not loader.call for value in values):
            return
        self.state.exports.append(LoaderExport(owner.name.value, True, attribute=attribute))
        module = self.parent(owner)
        assert isinstance(module, cst.Module)
        for statement in module.body:
            if not isinstance(statement, cst.FunctionDef):
                continue
            returns = [
                node.value
                for node in walk(statement.body, skip_scopes=True)
                if isinstance(node, cst.Return)
            ]
            if returns and all(
                isinstance(value, cst.Call)
                and isinstance(value.func, cst.Name)
                and value.func.value == owner.name.value
                for value in returns
            ):
                name = statement.name.value
                self.state.exports.append(LoaderExport(name, True, attribute=attribute))

    def _export_bound_names(
        self, function: cst.FunctionDef, position: int | None, arity: int | None
    ) -> None:
        """The module-level names this module binds to the exported factory's loader
        (`shared_set, shared_loader = data_provider("train")` beside `def data_provider`):
        importers reach that loader by name, and its loops there are sharded loops."""
        module = self.parent(function)
        if not isinstance(module, cst.Module):
            return
        for statement in module.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if not (
                    isinstance(small, cst.Assign)
                    and len(small.targets) == 1
                    and isinstance(small.value, cst.Call)
                    and isinstance(small.value.func, cst.Name)
                    and small.value.func.value == function.name.value
                ):
                    continue
                target = small.targets[0].target
                bound: cst.BaseExpression | None
                if position is None:
                    bound = target if arity is None else None
                elif isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == arity:
                    bound = target.elements[position].value
                else:
                    bound = None
                if isinstance(bound, cst.Name):
                    self.state.exports.append(LoaderExport(bound.value, False))

    def _shapes(
        self,
        value: cst.BaseExpression,
        function: cst.FunctionDef,
        all_loaders: set[cst.Call],
        memo: dict[cst.CSTNode, list[Shape] | None],
        alike: set[cst.Call] | None = None,
    ) -> list[Shape]:
        """The shapes `value` can have (see Shape); _Unknown when one cannot be told.
        `memo`: shapes by binding, None while one is being read (a binding that refers to
        itself, `ds = ds[0] if len(ds) == 1 else ds`, adds the others' shapes)."""
        if isinstance(value, cst.Call):
            if value in all_loaders:
                return [(None, (value,))]
            raise _Unknown
        if isinstance(value, (cst.Tuple, cst.List)):
            if any(isinstance(e, cst.StarredElement) for e in value.elements):
                raise _Unknown
            slots = tuple(self._loader_of(e.value, all_loaders, alike) for e in value.elements)
            return [(len(slots), slots)]
        if isinstance(value, cst.IfExp):
            return [
                *self._shapes(value.body, function, all_loaders, memo, alike),
                *self._shapes(value.orelse, function, all_loaders, memo, alike),
            ]
        if (items := looked_up(view(self._module_node), value)) is not None:  # by a key
            return [(None, (self._loader_of(v, all_loaders, alike),)) for _, v in items]
        if isinstance(value, cst.Subscript) and isinstance(value.value, cst.Name):
            # An item of a list of loaders (`ds[0]`): one value, which loader is not told.
            for shape in self._shapes(value.value, function, all_loaders, memo, alike):
                if shape[0] is None or not all(s is not None for s in shape[1]):
                    raise _Unknown
            return [(None, (None,))]
        if not isinstance(value, cst.Name):
            raise _Unknown
        referents = self.referents(value)
        if not referents:
            raise _Unknown
        shapes: list[Shape] = []
        for referent in referents:
            target = referent.node
            if target in memo:
                shapes += memo[target] or []  # None: in progress (`ds = ds[0] if ... else ds`)
                continue
            memo[target] = None
            bound = assigned_value(target, self)
            if bound is None or enclosing_function(target, self) is not function:
                raise _Unknown
            if isinstance(bound, cst.List) and not bound.elements:
                found = [self._appended(value.value, function, all_loaders)]
            else:
                found = self._shapes(bound, function, all_loaders, memo, alike)
            memo[target] = found
            shapes += found
        return shapes

    def _appended(self, name: str, function: cst.FunctionDef, all_loaders: set[cst.Call]) -> Shape:
        """`ds = []` then `ds.append(x)` statements: (their number, what each appends).

        Appends in a loop, or any other use of `ds` than appending, reading its length or an
        item, rebinding and returning it, make the shape unknown. Appends under conditions
        are fine: unpacking as many items as there are appends means that every one ran.
        """
        appended: list[cst.Call | None] = []
        for node in walk(function.body, skip_scopes=True):
            if not (isinstance(node, cst.Name) and node.value == name):
                continue
            parent = self.parent(node)
            if isinstance(parent, cst.Attribute) and parent.value is node:
                call = self.parent(parent)
                if parent.attr.value != "append" or not (
                    isinstance(call, cst.Call) and call.func is parent and len(call.args) == 1
                ):
                    raise _Unknown
                if self._in_loop(call, function):
                    raise _Unknown
                appended.append(self._loader_of(call.args[0].value, all_loaders))
            elif isinstance(parent, cst.Arg):
                call = self.parent(parent)
                if not (isinstance(call, cst.Call) and name_of(call.func) == "len"):
                    raise _Unknown
            elif not isinstance(
                parent, (cst.AssignTarget, cst.Subscript, cst.IfExp, cst.Return, cst.Comparison)
            ):
                raise _Unknown
        return len(appended), tuple(appended)

    def _in_loop(self, node: cst.CSTNode, function: cst.FunctionDef) -> bool:
        current = self.parent(node)
        while current is not None and current is not function:
            if isinstance(current, (cst.For, cst.While, cst.BaseComp)):
                return True
            current = self.parent(current)
        return False

    def _loader_of(
        self,
        value: cst.BaseExpression,
        all_loaders: set[cst.Call],
        alike: set[cst.Call] | None = None,
    ) -> cst.Call | None:
        """The DataLoader call `value` is (itself, or a name every binding of which is it).
        A name bound to several of `alike` (loaders sharded alike, one per branch of a
        factory: alike_loaders.py) is any one of them: they stand for each other."""
        if isinstance(value, cst.Call):
            return value if value in all_loaders else None
        if not isinstance(value, cst.Name):
            return None
        bound = {assigned_value(r.node, self) for r in self.referents(value)}
        if alike and len(bound) > 1 and bound <= alike:
            return next(c for c in alike if c in bound)
        only = bound.pop() if len(bound) == 1 else None
        return only if isinstance(only, cst.Call) and only in all_loaders else None

    # == importer side ==================================================================
    def _plan_imported(self, nodes: ModuleNodes, loaders: dict[cst.Call, Loader]) -> list[Loader]:
        """set_epoch for exported loaders iterated here; DP027 for unfollowed ones. Returns
        the loaders of other modules that the program shards, as bound here by a call of
        their factory, with the loops over them: their running figures are this rank's
        share, as for this module's own loaders (the figure rule, data/evaluation.py)."""
        exported = tuple(e for e in self.state.loaders.exported if e.loader_itself)
        #: Sharded by a batch sampler of the program's own (DdpBatchShard): no set_epoch to
        #: plan, but its figures are this rank's share all the same (stop 52 w1).
        batched = tuple(e for e in self.state.loaders.exported if e.batches)
        unfollowed = dict(self.state.loaders.unfollowed)
        handed_beside_training(self, nodes)
        if not exported and not batched and not unfollowed:
            return []
        evaluation, wrapped = self._factory_sites.imported_sites(nodes, exported)
        evaluation |= self._evaluation_factory_calls(nodes, exported)
        slots = evaluation_slots(self, nodes, exported)  # built whole by the library
        self.state.handoffs += exported_handoffs(self, exported, evaluation, slots)
        #: The sharded loaders of other modules iterated here, one per binding call: their
        #: loops' running figures are this rank's share as for this module's own loaders.
        sharded: dict[cst.CSTNode | str, Loader] = {}
        # each loop with what it iterates, and whether it takes the batches by `next(it)`
        takers: list[tuple[cst.For | cst.While, cst.BaseExpression, bool]] = [
            (loop, expr, False) for loop in nodes.of(cst.For) for expr in iterated(loop.iter)
        ]
        taken = next_taken(self, nodes)  # type: ignore[arg-type]
        takers += [(loop, expr, True) for loop, expr in taken]
        for loop, expr, by_next in takers:
            if self._resolve(expr, loaders, 0):
                continue  # a loader of this module: planned with the others
            origins = self._origins(expr, (), 0, attributes=True)
            for origin in origins:
                pick = picks_sharded(origin.call, self._exported_as(origin, exported))
                if self._is_exported(origin, batched):
                    pass  # sharded by the library, batch by batch: figures only
                elif origin.attribute and not self._is_exported(origin, exported):
                    continue  # an attribute of another call's result: not proved
                elif origin.call in evaluation or (origin.call, origin.position) in slots:
                    continue  # built whole (ddp_shard=False): no sampler to set
                elif pick is not True:  # a whole loader by a constant; else figures only
                    if pick is False:
                        continue
                elif by_next or not isinstance(loop, cst.For):
                    pass  # `next(it)` of `iter(loader)`: its figures (no set_epoch here)
                elif origin.call in wrapped or self._is_exported(origin, exported):
                    placed = self._imported_set_epoch(origin, loop, expr)
                    export = self._exported_as(origin, exported) or wrapped.get(origin.call)
                    if export is not None:
                        name = f"{export.module}.{export.name}"
                        self.state.epoch_loops.append((name, placed))
                elif origin.call not in self._factory_sites.forwarded:
                    continue  # not proved sharded: none of its figures is said here
                call = origin.call
                key: cst.CSTNode | str
                if call is not None:
                    key = call
                else:  # a module-level name: `from data import train_loader`
                    key = self.code(origin.binding)
                    # A stand-in, in no tree: the figure rule reads no `args` (empty)
                    call = cst.Call(func=cst.Name("DataLoader"))
                found = sharded.setdefault(
                    key, Loader(call, {}, origin.binding, origin.statement, None)
                )
                if pick is None:
                    found.maybe = f", where {self.code(call.func)}() returns a sharded loader"
                if by_next and not any(seen is loop for seen in found.next_loops):
                    found.next_loops.append(loop)
                elif isinstance(loop, cst.For) and not any(
                    seen is loop for seen, _, _ in found.loops
                ):
                    found.loops.append((loop, expr, origin.path))
            if unfollowed and not by_next and isinstance(loop, cst.For) and self._trains(loop):
                warn_unfollowed_loop(self, expr, origins, unfollowed)
        return list(sharded.values())

    def _evaluation_factory_calls(
        self, nodes: ModuleNodes, exported: tuple[LoaderExport, ...]
    ) -> set[cst.Call]:
        """Calls of another module's loader factory that build an evaluation loader: no
        loop here trains on what it returns (a pass with its steps switched off,
        `run(loader, train=False)`, evaluates), and other modules' loops it is handed to
        evaluate it, or the factory's `shuffle=` parameter gets False (thunlp/OpenNRE's
        SentenceRELoader). Each passes `ddp_shard=False` (DP015); the factory takes it."""
        found: set[cst.Call] = set()
        factories = [e for e in exported if e.function and e.position is None and not e.branched]
        if not factories:
            return found
        trained: set[cst.Call] = set()
        evaluated: dict[cst.Call, str] = {}  # a pass with its backward off: `train=False`
        for loop in (loop for loop in nodes.of(cst.For) if self._trains(loop)):
            for made, path in self._origins_of(loop):
                if self._guard_passed(loop, path) is not False:
                    trained.add(made)
                else:
                    evaluated.setdefault(made, f"its loop at line {self.line_of(loop)}")
        for call in nodes.of(cst.Call):
            if call in trained:
                continue
            origin = Origin(call, call, None, None, None, ())
            # Each call once, whatever number of exports name its factory (stop 56 v1-B:
            # ReID_PCB's getDataLoader, exported twice, was judged once with its
            # `shuffle=False` and once without: two DP084s at one call, "left unsharded"
            # and "sharded as training data"). No shuffle parameter (a sampler of its own,
            # class v2-E of stop 41): the loops it is handed to decide alone.
            matching = [e for e in factories if self._is_exported(origin, (e,))]
            if not matching:
                continue
            values = [
                argument(call, e.shuffle, e.shuffle_index) or e.ordered_default
                for e in matching
                if e.shuffle
            ]
            ordered = any(
                v is True or (isinstance(v, cst.Name) and v.value == "False") for v in values
            )
            sample = fetched_once(self, call)  # one fixed batch: whole, as fetched
            why = "" if sample else self._handed_evaluates(call, ordered or call in evaluated)
            why = f"{evaluated[call]} evaluates it" if why == "" and call in evaluated else why
            if why is None:
                continue
            found.add(call)
            self._factory_sites.evaluation_call(call, self.code(call.func), why, sample)
            for export in matching:
                name = f"{export.module}.{export.name}"
                if name not in self.state.evaluation_factories:
                    self.state.evaluation_factories.append(name)
        return found

    def _handed_evaluates(self, call: cst.Call, ordered: bool) -> str | None:
        """Whether a factory `call` builds an evaluation loader (None: no; else why, "" for
        its flag): by other modules' loops its result is handed to (v1-F of stop 39: QANet's
        `get_loader(dev, shuffle=True)` evaluated by a Trainer under `no_grad()`), else by
        `ordered` (shuffle=False); handed where nothing is proved: the flag, DP084 said."""
        handed = handed_on(self, lambda e: any(o.call is call for o in self._origins(e, (), 0)))
        where = "; ".join(f"{h.text()} at line {self.line_of(h.site)}" for h in handed)
        flag = "" if ordered else None
        if not handed:
            return flag
        role = handed_role(handed)
        if role is not None:
            return f"handed to {where}" if role == "evaluates" else None
        done = "left unsharded (shuffle=False)" if ordered else "sharded as training data"
        self.warn(
            call,
            "DP084",
            f"the loader {self.code(call.func)}() builds is handed to {where}: not proved "
            f"to train or to evaluate there; {done}",
        )
        return flag

    def _origins(
        self, expr: cst.BaseExpression, path: Path, depth: int, attributes: bool = False
    ) -> list[Origin]:
        """The bindings `expr` can come from, through parameters to the calls passing them.
        `attributes`: also an attribute of what a call returns (`d = data.create(8)`, then
        `d.trainloader`: Origin.attribute), for the exports of a class's loader."""
        found: list[Origin] = []
        if depth > MAX_DEPTH:
            return found
        if isinstance(expr, cst.Attribute):
            owner = enclosing_class(expr, self)
            if owner is not None:  # `self.train_loader = make_loaders(...)` in a method
                for assigned in self._attribute_values(owner, self.code(expr)):
                    if isinstance(assigned, cst.Call):
                        found.append(Origin(assigned, expr, None, None, None, path))
                for _, call, at, count in self._attribute_slots(owner, self.code(expr)):
                    found.append(Origin(call, expr, None, at, count, path))  # `self.a, self.b =`
                return found
            found.append(Origin(None, expr, None, None, None, path))  # `data.train_loader`
            if attributes:
                found += self._attribute_origins(expr, path, depth)
            return found
        if not isinstance(expr, cst.Name):
            return found
        for referent in self.referents(expr):
            target = referent.node
            if isinstance(target, cst.Param):
                for site, passed in self._passed(target):
                    step = ((site, passed), *path)
                    found += self._origins(passed, step, depth + 1, attributes)
                continue
            position = arity = None
            holder = self.parent(target)
            if isinstance(holder, cst.Element):  # `a, b = get(...)`
                items = self.parent(holder)
                if not isinstance(items, (cst.Tuple, cst.List)):
                    continue
                position = next(i for i, e in enumerate(items.elements) if e is holder)
                arity = len(items.elements)
                holder = self.parent(items)
            value: cst.BaseExpression | None = None
            if isinstance(holder, cst.AssignTarget):
                assign = self.parent(holder)
                if isinstance(assign, cst.Assign):
                    value = assign.value
            prefix = isinstance(value, cst.Subscript) and prefix_slice(value)
            if isinstance(value, cst.Subscript) and prefix:
                value = value.value  # `make(...)[:2]`: its items at their positions
            if isinstance(value, cst.Name) and position is not None and depth < MAX_DEPTH:
                found += unpacked_alias(self, value, expr, position, arity, path, depth)
            for call in branch_calls(value):  # `make(...)`, `make(...) if flag else None`
                statement = self._binding(call)[1]
                found.append(Origin(call, expr, statement, position, arity, path, prefix=prefix))
            if value is None:  # an import (`from data import train_loader`), a def...
                found.append(Origin(None, expr, None, position, arity, path))
            elif attributes and position is None and isinstance(value, cst.Attribute):
                found += self._attribute_origins(value, path, depth)  # `x = d.trainloader`
        return found

    def _attribute_origins(self, expr: cst.Attribute, path: Path, depth: int) -> list[Origin]:
        """`obj.name` where `obj` is bound from a call (through names and parameters): that
        call, holding the loader as its result's attribute `name`."""
        return [
            Origin(origin.call, expr, origin.statement, None, None, origin.path, expr.attr.value)
            for origin in self._origins(expr.value, path, depth + 1)
            if origin.call is not None and origin.position is None
        ]

    def _call_origin(self, call: cst.Call, position: int | None, arity: int | None) -> Origin:
        """`call` itself as an origin, holding the loader at `position` of `arity` items."""
        return Origin(call, call, None, position, arity, ())

    def _is_exported(
        self, origin: Origin, exported: tuple[LoaderExport, ...], takers: bool = False
    ) -> bool:
        """The origin is a loader a library exported (matched by qualified name); `takers`:
        an instance of a class whose method takes its loaders' batches (LoaderExport.taker)
        instead."""
        return self._exported_as(origin, exported, takers) is not None

    def _exported_as(
        self, origin: Origin, exported: tuple[LoaderExport, ...], takers: bool = False
    ) -> LoaderExport | None:
        """The export the origin is (see _is_exported); None where it is none."""
        return exported_as(self, origin, exported, takers)

    def _imported_set_epoch(
        self,
        origin: Origin,
        loop: cst.For,
        expr: cst.BaseExpression,
    ) -> bool:
        """`loader.sampler.set_epoch(epoch)` in each epoch loop found around `loop`. Where
        none is found the library's sampler advances its epoch by itself (its DP011).
        True where every pass over it is numbered so (or the module's single pass)."""
        placed = True
        around = self._loops_around(loop, expr, origin.path, 0)
        for epoch_loop, receiver in around:
            if isinstance(epoch_loop, cst.For):
                failure = self._place_set_epoch(origin.statement, epoch_loop, receiver)
                placed = placed and failure is None
            elif not isinstance(epoch_loop, cst.Module):
                placed = False
        return placed and bool(around)

    def _origins_of(self, loop: cst.For) -> Iterator[tuple[cst.Call, Path]]:  # by calls
        for expr in iterated(loop.iter):
            yield from ((o.call, o.path) for o in self._origins(expr, (), 0) if o.call)

    def _trains(self, loop: cst.For) -> bool:
        """The loop trains (analysis/training.py), itself or through the program's functions
        and objects' methods (`trainer.train_step(x, y)`: data/told_steps.py), or hands loss
        and optimizer on (handed_loops.py)."""
        return trains_in_program(self, loop) or hands_step(self, loop)

    def _trains_or_hands_loss(self, loop: cst.For) -> bool:
        """`_trains`, or the loop hands the loss alone to a call not read (DP152): asked
        where only library calls or a nested no_grad() block would make it an evaluation."""
        return self._trains(loop) or hands_step(self, loop, loss_only=True)
