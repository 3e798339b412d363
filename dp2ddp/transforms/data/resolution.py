"""Following a loader: its bindings, where it is iterated, what its arguments hold."""

from __future__ import annotations

import libcst as cst

from dp2ddp.transforms._support.names import DDP_DISTRIBUTED_SAMPLER, DISTRIBUTED_SAMPLER
from dp2ddp.transforms._support.nodes import (
    assigned_value,
    dict_keys,
    enclosing_class,
    enclosing_function,
    is_none,
    name_of,
)
from dp2ddp.transforms.data.flow import MAX_DEPTH, CallFlow, Path
from dp2ddp.transforms.data.plan import (
    EVAL_SAMPLER,
    ITERABLE_DATASET,
    SHARD_FLAG,
    CallEdit,
    Loader,
)


class LoaderResolution(CallFlow):
    """The loaders' state, and how a loader is followed through names, scopes and calls."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self._edits: dict[cst.Call, CallEdit] = {}
        self._samplers: dict[cst.Call, cst.Call] = {}  # RandomSampler(...) -> ours
        self._before: dict[cst.BaseStatement, list[cst.BaseStatement]] = {}
        self._after: dict[cst.BaseStatement, list[cst.BaseStatement]] = {}
        #: `len(loader)` after an evaluation loop -> the name of the batches summed over ranks
        self._lengths: dict[cst.Call, str] = {}
        #: functions, methods of the module that print or write a file
        self._printers: tuple[set[str], set[str]] | None = None
        self._imported_names: set[str] | None = None  # names the module's imports bind
        self._module_node: cst.Module = cst.Module(body=[])
        self._top: dict[cst.For, list[cst.BaseStatement]] = {}
        self._renames: dict[cst.For, str] = {}
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
            return [(expr, ())] if expr in loaders else found
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
            return found
        if not isinstance(expr, cst.Name):
            return found
        for assignment in self.referents(expr):
            target = assignment.node
            if isinstance(target, cst.Param):
                function = enclosing_function(target, self)
                if function is None:
                    continue
                for site in self._callers(function):
                    argument = self._argument(function, site, target)
                    if argument is not None:
                        found += [
                            (call, ((site, argument), *path))
                            for call, path in self._resolve(argument, loaders, depth + 1)
                        ]
            else:
                assigned = assigned_value(target, self)
                if isinstance(assigned, cst.Call) and assigned in loaders:
                    found.append((assigned, ()))
                else:
                    for returned in self._returned(target):
                        found += self._resolve(returned, loaders, depth + 1)
        return found

    def _binding(
        self, call: cst.Call
    ) -> tuple[cst.BaseExpression | None, cst.BaseStatement | None]:
        parent = self.parent(call)
        binding = None
        if isinstance(parent, cst.Assign) and parent.value is call:
            binding = parent.targets[0].target
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

    def _is_ours(self, sampler: cst.BaseExpression) -> bool:
        """Already a DistributedSampler or dp2ddp's evaluation sampler (a second run), also
        as a factory's `<sampler> if ddp_shard else None` (factory_sites.py)."""
        if (
            isinstance(sampler, cst.IfExp)
            and isinstance(sampler.test, cst.Name)
            and sampler.test.value == SHARD_FLAG
            and is_none(sampler.orelse)
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

    def _iterable_dataset_classes(self, nodes: list[cst.CSTNode]) -> set[str]:
        classes = [n for n in nodes if isinstance(n, cst.ClassDef)]
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
        return isinstance(dataset, cst.Call) and name_of(dataset.func) in self._iterable_classes
