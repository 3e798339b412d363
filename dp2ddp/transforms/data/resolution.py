"""Following a loader: its bindings, where it is iterated, what its arguments hold."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import view
from dp2ddp.flow.passes import pass_values
from dp2ddp.transforms._support.names import DDP_DISTRIBUTED_SAMPLER, DISTRIBUTED_SAMPLER
from dp2ddp.transforms._support.nodes import (
    ModuleNodes,
    assigned_target,
    assigned_value,
    dict_keys,
    enclosing_class,
    enclosing_function,
    is_none,
    name_of,
    walk,
)
from dp2ddp.transforms.analysis.step_guards import reached_at
from dp2ddp.transforms.data.decisions import Decision
from dp2ddp.transforms.data.flow import MAX_DEPTH, CallFlow, Path, branch_calls
from dp2ddp.transforms.data.plan import (
    EVAL_SAMPLER,
    ITERABLE_DATASET,
    SHARD_FLAG,
    CallEdit,
    Loader,
)
from dp2ddp.transforms.data.split_loaders import is_split_test

if TYPE_CHECKING:
    from dp2ddp.transforms.data.batch_shard import ShardEdit


class LoaderResolution(CallFlow):
    """The loaders' state, and how a loader is followed through names, scopes and calls."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self._edits: dict[cst.Call, CallEdit] = {}
        #: loaders sharded through their own sampler (batch_shard.py), by their call
        self._shards: dict[cst.Call, ShardEdit] = {}
        self._samplers: dict[cst.Call, cst.Call] = {}  # RandomSampler(...) -> ours
        self._before: dict[cst.BaseStatement, list[cst.BaseStatement]] = {}
        self._after: dict[cst.BaseStatement, list[cst.BaseStatement]] = {}
        #: loop -> the `break` its figures decide (evaluation.py's _evaluates), computed once
        self._decisions: dict[cst.For, Decision | None] = {}
        #: loop -> it hands a training step to a call (handed_loops.py), computed once
        self._handed: dict[tuple[cst.CSTNode, bool, bool], bool] = {}
        #: functions, methods of the module that print or write a file
        self._printers: tuple[set[str], set[str]] | None = None
        #: "Class.method" of the methods keeping what they are given (counters.py).
        self._keepers: frozenset[str] | None = None
        self._imported_names: set[str] | None = None  # names the module's imports bind
        self._module_node: cst.Module = cst.Module(body=[])
        self._top: dict[cst.For, list[cst.BaseStatement]] = {}
        self._renames: dict[cst.For, str] = {}
        #: operands of a saved image grid read gathered from every rank (sample_grids.py)
        self._gathers: dict[cst.Name, cst.BaseExpression] = {}
        self._grid_loops: list[tuple[Loader, cst.For | cst.While]] = []
        self._lines: list[str] = []
        self._indent = "    "
        self._iterable_classes: set[str] = set()
        #: Every loader of the module dp2ddp can shard, by its call.
        self._loaders: dict[cst.Call, Loader] = {}
        self._all_loaders: set[cst.Call] = set()  # every DataLoader call, planned or not

    # -- names, scopes and calls ----------------------------------------------------------
    def _resolve(
        self, expr: cst.BaseExpression, loaders: dict[cst.Call, Loader], depth: int
    ) -> list[tuple[cst.Call, Path]]:
        """The loaders `expr` can be, each with the calls through which it came as argument."""
        found: list[tuple[cst.Call, Path]] = []
        if depth > MAX_DEPTH:
            return found
        if isinstance(expr, cst.Call):
            if expr in loaders:
                return [(expr, ())]
            if (keyword := self._keyword_read(expr)) is not None:
                return self._resolve_keyword(*keyword, loaders, depth)
            # `for x in make():` a function (or method) of this module returning a loader
            # builds a new one on each call (the epoch loop's passes over it: set_epoch)
            # (only the returns its arguments let run: analysis/step_guards.reached_at)
            flow = view(self._meta_module())
            for function in self._called_functions(expr):
                for node in walk(function.body, skip_scopes=True):
                    if (
                        isinstance(node, cst.Return)
                        and node.value is not None
                        and reached_at(flow, node, expr)
                    ):
                        found += self._resolve(node.value, loaders, depth + 1)
            return found
        if isinstance(expr, cst.Attribute):
            text, owner = self.code(expr), enclosing_class(expr, self)
            found += [
                (loader.call, ())
                for loader in loaders.values()
                if loader.binding is not None
                and self.code(loader.binding) == text
                and enclosing_class(loader.call, self) is owner
            ]
            if owner is not None:
                # `self.loader = loader` in __init__: the loader came in as an argument.
                # `self.loader` itself stays valid across the class, so no call path.
                for value in self._attribute_values(owner, text):
                    if not isinstance(value, cst.Call):
                        found += [(c, ()) for c, _ in self._resolve(value, loaders, depth + 1)]
                # `self.train_loader, self.test_loader = make(...)`: its item's returns
                for item, _, _, _ in self._attribute_slots(owner, text):
                    for returned in self._returned(item):
                        found += [(c, ()) for c, _ in self._resolve(returned, loaders, depth + 1)]
            return found
        if isinstance(expr, cst.Subscript):
            if (keyword := self._keyword_read(expr)) is not None:
                return self._resolve_keyword(*keyword, loaders, depth)
            return self._resolve_item(expr, loaders)
        if not isinstance(expr, cst.Name):
            return found
        flow = view(self._meta_module())
        for assignment in self.referents(expr):
            target = assignment.node
            if isinstance(target, cst.Param):
                for site, argument in self._passed(target):
                    found += [
                        (call, ((site, argument), *path))
                        for call, path in self._resolve(argument, loaders, depth + 1)
                    ]
            elif (each := pass_values(flow, assignment.definition)) is not None:
                # `for mode, loader in [("Train", train_loader), ...]`: each pass's value
                for value in each:
                    found += self._resolve(value, loaders, depth + 1)
            else:
                assigned = assigned_value(target, self) or self._paired_value(target)
                if isinstance(assigned, cst.Call) and assigned in loaders:
                    found.append((assigned, ()))
                elif (unpacked := self._unpacked_loader(target, loaders)) is not None:
                    found.append((unpacked, ()))
                elif assigned is not None and self._keyword_read(assigned) is not None:
                    found += self._resolve(assigned, loaders, depth)
                else:  # `a, b = make(1), make(2)`: b's call's returns (round 22)
                    paired = self._paired_value(target)
                    through = (
                        [paired]
                        if isinstance(paired, cst.Call)
                        else list(branch_calls(assigned))  # `f(a) if flag else f(b)`
                        if isinstance(assigned, cst.IfExp)
                        else self._returned(target)
                    )
                    for returned in through:
                        found += self._resolve(returned, loaders, depth + 1)
        return found

    def _paired_value(self, target: cst.CSTNode) -> cst.BaseExpression | None:
        """`b` of `a, b = DataLoader(...), DataLoader(...)`: the value in its place of a
        tuple of as many values (WS-DAN's `train_loader, validate_loader = DataLoader(...),
        DataLoader(...)`); None for anything else."""
        holder = self.parent(target)
        items = self.parent(holder) if isinstance(holder, cst.Element) else None
        bound = self.parent(items) if isinstance(items, (cst.Tuple, cst.List)) else None
        assign = self.parent(bound) if isinstance(bound, cst.AssignTarget) else None
        if not (
            isinstance(holder, cst.Element)
            and isinstance(items, (cst.Tuple, cst.List))
            and isinstance(assign, cst.Assign)
            and isinstance(assign.value, (cst.Tuple, cst.List))
            and len(assign.value.elements) == len(items.elements)
        ):
            return None
        at = next(i for i, e in enumerate(items.elements) if e is holder)
        element = assign.value.elements[at]
        return element.value if isinstance(element, cst.Element) else None

    def _keyword_read(self, expr: cst.BaseExpression) -> tuple[cst.Param, str] | None:
        """`kwargs["data_loader"]` or `kwargs.get("data_loader")` where `kwargs` is the
        `**` parameter of its function: (that parameter, the key). The value is what each
        call passes by that keyword (`train(data_loader=train_loader, ...)`; GuYuc/
        WS-DAN.PyTorch@8777912, class v1-B of stop 58: unfollowed, no loop over the
        training loader was found, DP011 said "no loop", and the loop's meters, rank 0's
        share in its log, were not read). None for anything else."""
        if isinstance(expr, cst.Subscript):
            holder, key = expr.value, _literal_key(expr)
        elif (
            isinstance(expr, cst.Call)
            and isinstance(expr.func, cst.Attribute)
            and expr.func.attr.value == "get"
            and expr.args
            and isinstance(expr.args[0].value, cst.SimpleString)
            and expr.args[0].keyword is None
        ):
            holder = expr.func.value
            value = expr.args[0].value.evaluated_value
            key = value if isinstance(value, str) else None
        else:
            return None
        if key is None or not isinstance(holder, cst.Name):
            return None
        referents = self.referents(holder)
        if len(referents) != 1 or not isinstance(referents[0].node, cst.Param):
            return None
        param = referents[0].node
        function = enclosing_function(param, self)
        if function is None or function.params.star_kwarg is not param:
            return None
        return param, key

    def _resolve_keyword(
        self, param: cst.Param, key: str, loaders: dict[cst.Call, Loader], depth: int
    ) -> list[tuple[cst.Call, Path]]:
        """The loaders the calls of `param`'s function pass by the keyword `key` into its
        `**` parameter, each with that call on its path (as for a named parameter)."""
        function = enclosing_function(param, self)
        if function is None:
            return []
        found: list[tuple[cst.Call, Path]] = []
        for site in self._callers(function):
            for arg in site.args:
                if arg.keyword is not None and arg.keyword.value == key:
                    found += [
                        (call, ((site, arg.value), *path))
                        for call, path in self._resolve(arg.value, loaders, depth + 1)
                    ]
        return found

    def _unpacked_loader(
        self, target: cst.CSTNode, loaders: dict[cst.Call, Loader]
    ) -> cst.Call | None:
        """`data, loader = factory(flag)` where `factory(flag)` is one of `loaders` (a
        factory's call site, factory_sites.py) and the factory returns its loader in
        `loader`'s place: that call; `data` is not the loader."""
        holder = self.parent(target)
        if not isinstance(holder, cst.Element):
            return None
        items = self.parent(holder)
        target_of = self.parent(items) if isinstance(items, (cst.Tuple, cst.List)) else None
        assign = self.parent(target_of) if isinstance(target_of, cst.AssignTarget) else None
        if not (
            isinstance(assign, cst.Assign)
            and isinstance(assign.value, cst.Call)
            and assign.value in loaders
        ):
            return None
        real = self._loaders
        if any(self._resolve(r, real, 1) for r in self._returned(target)):
            return assign.value
        return None

    def _read_through(
        self, expr: cst.BaseExpression, loaders: dict[cst.Call, Loader], depth: int = 0
    ) -> set[cst.Call]:
        """The loaders a local name holds when every binding of it reads one from somewhere
        else (`loader = self.data_loader["train"]`, `loader = self.train_loader`, `loader =
        train_loader`, and a name for such a name: `process = loader`) rather than building
        or receiving it; empty otherwise. Such a loop is not one of `_resolve`'s, whose
        expressions later passes spell in other functions (set_epoch in the caller's epoch
        loop), where the local name does not exist; yet what it shows of its batches is
        this rank's share (real-world: lshiwjx/2s-AGCN@953c14f and kenziyuliu/MS-G3D@2f927f4
        print the epoch's mean training loss, no DP030), its chunks are cut from this rank's
        batch (data/chunks.py) and the batches pass must not split it again."""
        if not isinstance(expr, cst.Name) or depth > MAX_DEPTH:
            return set()
        values = [assigned_value(r.node, self) for r in self.referents(expr)]
        if not values or not all(
            isinstance(v, (cst.Name, cst.Attribute, cst.Subscript)) for v in values
        ):
            return set()
        found: set[cst.Call] = set()
        for value in values:
            if value is None:
                continue
            found |= {call for call, _ in self._resolve(value, loaders, 1)}
            found |= self._read_through(value, loaders, depth + 1)
        return found

    def _resolve_item(
        self, expr: cst.Subscript, loaders: dict[cst.Call, Loader]
    ) -> list[tuple[cst.Call, Path]]:
        """The loaders stored as items of the container `expr` reads (`self.data_loader[ln]`
        after `self.data_loader["test"] = DataLoader(...)`): the item of that key when both
        keys are string literals, else every item of the container, since the key read may
        be any of them. Left unfollowed, an evaluation loop over such an item was no loop of
        its loader, which was then sharded as a training loader while the loop's
        concatenated results were matched against the whole dataset (real-world:
        lshiwjx/2s-AGCN@953c14f, kenziyuliu/MS-G3D@2f927f4: `dataset.top_k(score)` indexed
        past this rank's rows)."""
        keys = self._possible_keys(expr, 0)
        text, owner = self.code(expr.value), enclosing_class(expr, self)
        found: list[tuple[cst.Call, Path]] = []
        for loader in loaders.values():
            binding = loader.binding
            if (
                isinstance(binding, cst.Subscript)
                and self.code(binding.value) == text
                and enclosing_class(loader.call, self) is owner
                and (keys is None or _literal_key(binding) in (*keys, None))
            ):
                found.append((loader.call, ()))
            elif binding is None and enclosing_class(loader.call, self) is owner:
                key = self._dict_literal_key(loader.call, text)
                if key is not False and (keys is None or key in (*keys, None)):
                    found.append((loader.call, ()))
        return found

    def _dict_literal_key(self, call: cst.Call, container: str) -> str | None | bool:
        """`self.data_loader = {"train": DataLoader(...)}`: the key the loader is stored
        under in a dict literal bound to `container` (None: not a string literal); False
        where the loader is no value of such a dict."""
        element = self.parent(call)
        if isinstance(element, cst.DictComp) and element.value is call:
            # `{x: DataLoader(sets[x], ...) for x in ["train", "val"]}` (layumi/
            # Person_reID_baseline_pytorch@82ff40f): one loader call for every key.
            assign = self.parent(element)
            if (
                isinstance(assign, cst.Assign)
                and len(assign.targets) == 1
                and self.code(assign.targets[0].target) == container
            ):
                return None
            return False
        if not isinstance(element, cst.DictElement) or element.value is not call:
            return False
        literal = self.parent(element)
        assign = self.parent(literal) if isinstance(literal, cst.Dict) else None
        if not (
            isinstance(assign, cst.Assign)
            and len(assign.targets) == 1
            and self.code(assign.targets[0].target) == container
        ):
            return False
        key = element.key
        if isinstance(key, cst.SimpleString):
            value = key.evaluated_value
            return value if isinstance(value, str) else None
        return None

    def _possible_keys(self, item: cst.Subscript, depth: int) -> set[str] | None:
        """The string keys `item` may read: its literal key, or the strings a loop variable
        key runs over (`for ln in loader_name` with `loader_name=["test"]` as the default
        and at every call); None when some key may be anything."""
        if len(item.slice) != 1 or not isinstance(item.slice[0].slice, cst.Index):
            return None
        return self._strings(item.slice[0].slice.value, depth)

    def _strings(self, expr: cst.BaseExpression, depth: int) -> set[str] | None:
        """The strings `expr` may be (a literal, or a name bound by a `for` over literals);
        None when unknown."""
        if isinstance(expr, cst.SimpleString):
            value = expr.evaluated_value
            return {value} if isinstance(value, str) else None
        if not isinstance(expr, cst.Name) or depth > MAX_DEPTH:
            return None
        found: set[str] = set()
        referents = self.referents(expr)
        if not referents:
            return None
        for assignment in referents:
            target = assignment.node
            loop = self.parent(target)
            if isinstance(loop, cst.For) and loop.target is target:
                items = self._sequences(loop.iter, depth + 1)
                if items is None:
                    return None
                for element in items:
                    strings = self._strings(element, depth + 1)
                    if strings is None:
                        return None
                    found |= strings
            else:
                for bound in self._bound_values(target):
                    strings = self._strings(bound, depth + 1) if bound is not None else None
                    if strings is None:
                        return None
                    found |= strings
        return found

    def _bound_values(self, target: cst.CSTNode) -> list[cst.BaseExpression | None]:
        """What a name's binding gives it: a parameter's default and the argument of every
        call of its function (None where a call passes none), or the assigned value."""
        if not isinstance(target, cst.Param):
            return [assigned_value(target, self)]
        function = enclosing_function(target, self)
        if function is None:
            return [None]
        values: list[cst.BaseExpression | None] = []
        if target.default is not None:
            values.append(target.default)
        for site in self._callers(function):
            argument = self._argument(function, site, target)
            if argument is not None or target.default is None:  # else: the default, above
                values.append(argument)
        return values or [None]

    def _sequences(self, expr: cst.BaseExpression, depth: int) -> list[cst.BaseExpression] | None:
        """The elements a list/tuple literal, or a name bound to such literals (a parameter:
        its default and the argument of every call), may hold; None when unknown."""
        if isinstance(expr, (cst.List, cst.Tuple)):
            return [e.value for e in expr.elements if isinstance(e, cst.Element)]
        if not isinstance(expr, cst.Name) or depth > MAX_DEPTH:
            return None
        elements: list[cst.BaseExpression] = []
        referents = self.referents(expr)
        if not referents:
            return None
        for assignment in referents:
            for value in self._bound_values(assignment.node):
                more = self._sequences(value, depth + 1) if value is not None else None
                if more is None:
                    return None
                elements += more
        return elements

    def _binding(
        self, call: cst.Call
    ) -> tuple[cst.BaseExpression | None, cst.BaseStatement | None]:
        parent = self.parent(call)
        binding: cst.BaseExpression | None = None
        if isinstance(parent, cst.Assign) and parent.value is call:
            binding = parent.targets[0].target
        elif isinstance(parent, cst.Element):
            binding = assigned_target(call, self)  # `a, b = DataLoader(...), DataLoader(...)`
        elif isinstance(parent, cst.AnnAssign) and parent.value is call:
            binding = parent.target
        node: cst.CSTNode | None = call
        while node is not None:
            above = self.parent(node)
            if isinstance(above, (cst.IndentedBlock, cst.Module)) and isinstance(
                node, cst.BaseStatement
            ):
                return binding, node
            node = above
        return binding, None

    def _always_none(self, value: cst.BaseExpression) -> bool:
        """`None`, or a name every assignment of which binds None (`sampler = None` ...
        `DataLoader(ds, shuffle=sampler is None, sampler=sampler)`): no sampler at all."""
        if is_none(value):
            return True
        if not isinstance(value, cst.Name):
            return False
        referents = self.referents(value)
        return bool(referents) and all(
            isinstance(r.node, cst.Name)
            and (bound := assigned_value(r.node, self)) is not None
            and is_none(bound)
            for r in referents
        )

    def _is_ours(self, sampler: cst.BaseExpression) -> bool:
        """Already a DistributedSampler or dp2ddp's evaluation sampler (a second run), also
        as a factory's `<sampler> if ddp_shard else None` (factory_sites.py) or a split's
        `<sampler> if (split == "train") else None` (split_loaders.py). Not a program's own
        `DistributedSampler(ds) if args.distributed else None`: that one is off under
        DataParallel, and the loader is sharded as any other."""
        if (
            isinstance(sampler, cst.IfExp)
            and is_none(sampler.orelse)
            and (name_of(sampler.test) == SHARD_FLAG or is_split_test(sampler.test))
        ):
            return self._is_ours(sampler.body)
        if isinstance(sampler, cst.Name):
            values = [assigned_value(a.node, self) for a in self.referents(sampler)]
            return bool(values) and all(v is not None and self._is_ours(v) for v in values)
        return isinstance(sampler, cst.Call) and (
            self.matches(sampler.func, DISTRIBUTED_SAMPLER)
            or name_of(sampler.func) in (EVAL_SAMPLER, DDP_DISTRIBUTED_SAMPLER)
        )

    def _kwargs_are_safe(self, expr: cst.BaseExpression, args: dict[str, int]) -> bool:
        """`**kwargs` cannot carry shuffle/sampler: explicit shuffle=, or a visible dict literal."""
        if "shuffle" in args:
            return True
        keys = self._kwargs_keys(expr)
        return keys is not None and not keys & {"shuffle", "sampler", "batch_sampler"}

    def _kwargs_keys(self, expr: cst.BaseExpression) -> set[str] | None:
        """Keys of `**name` when `name` is a dict literal nothing else touches; else None."""
        if not isinstance(expr, cst.Name):
            return None
        referents = self.referents(expr)
        if len(referents) != 1:
            return None
        for access in referents[0].references:
            if not isinstance(self.parent(access.node), cst.Arg):
                return None  # kwargs.update(...), kwargs["shuffle"] = ...
        return dict_keys(assigned_value(referents[0].node, self))

    def _iterable_dataset_classes(self, nodes: ModuleNodes) -> set[str]:
        classes = list(nodes.of(cst.ClassDef))
        found: set[str] = set()
        changed = True
        while changed:
            changed = False
            for cls in classes:
                if cls.name.value not in found and any(
                    self.matches(b.value, ITERABLE_DATASET) or name_of(b.value) in found
                    for b in cls.bases
                ):
                    found.add(cls.name.value)
                    changed = True
        return found

    def _is_iterable_dataset(self, dataset: cst.BaseExpression) -> bool:
        if isinstance(dataset, cst.Name):
            values = [assigned_value(a.node, self) for a in self.referents(dataset)]
            return any(v is not None and self._is_iterable_dataset(v) for v in values)
        if not isinstance(dataset, cst.Call):
            return False
        if name_of(dataset.func) in self._iterable_classes:
            return True
        # another module's subclass (round 29, duytinvo/MLlib@00b126e: a stream class of
        # the program's own, imported, given a DistributedSampler it cannot serve)
        iterables = self.state.hints.per_sample.iterables
        return bool(iterables) and bool(self.qualified_names(dataset.func) & iterables)


def _literal_key(item: cst.Subscript) -> str | None:
    """The string key of `container["key"]`; None for any other index."""
    if len(item.slice) != 1 or not isinstance(item.slice[0].slice, cst.Index):
        return None
    value = item.slice[0].slice.value
    if isinstance(value, cst.SimpleString):
        key = value.evaluated_value
        return key if isinstance(key, str) else None
    return None
