"""Shard DataLoaders so each rank loads its own part of the data, with DataParallel's meaning.

Loaders are followed to where they are iterated: directly, passed as an argument, returned
from a helper, or stored on ``self`` (also when passed to the constructor); see CallFlow.

* A training loader gets ``sampler=DistributedSampler(dataset, shuffle=<its shuffle>)`` and
  loses ``shuffle=`` (DataLoader rejects both). A dataset built inline
  (``DataLoader(MyDataset(...))``) is first bound to a name in a statement of its own
  (``train_dataset = MyDataset(...)``), so loader and sampler share one object.
* A shuffled sampler needs ``set_epoch(epoch)`` or every epoch repeats the first one's order:
  ``loader.sampler.set_epoch(epoch)`` goes first in the ``for`` loop around the loop over the
  loader, following calls outward (``train(epoch)`` called from main's epoch loop), or right
  after the loader when it is rebuilt inside that loop. ``for _ in range(n)`` becomes
  ``for epoch in range(n)`` for it. A single pass at top level needs none; otherwise no
  usable epoch loop is DP011.
* DataParallel's ``batch_size`` is the global batch, so each process loads
  ``ddp_per_rank_batch(B)`` = B // WORLD_SIZE (warning at run time when B does not divide).
  ``B * n_gpu`` (any GPU count) was the per-GPU batch: it becomes ``B``. With
  ``per_process_batch`` B stays, and the global batch grows with the world size. A loader
  without ``batch_size`` (DataLoader's default, 1) is left alone: one sample cannot be split,
  so each process loads 1 and the global batch is WORLD_SIZE (said in the change record).
* An evaluation loader (not shuffled; named val/valid/test/eval/dev, or only iterated under
  ``torch.no_grad()``/``inference_mode`` or after ``.eval()``) gets ``ddp_eval_sampler(dataset)``:
  a strided shard without the padding DistributedSampler adds, so no sample counts twice.
  Counters bound to a number or a zero tensor before its loop and ``+=``-ed in it are summed
  over the ranks right after the loop, so the printed metrics are global; none found: DP015.
  A training loop's counters are summed too when later divided by ``len(loader.dataset)``.
* ``sampler=RandomSampler(dataset)`` / ``SequentialSampler(dataset)`` (inline, or a name bound
  to one and used by this loader only) just turn shuffling on or off: the sampler itself is
  replaced by ``DistributedSampler(dataset, shuffle=True/False)``, or by ``ddp_eval_sampler``
  for a sequential evaluation loader, and the loader is then treated as any other. Their
  import goes once nothing uses it.
* Left alone: loaders with any other sampler (DP009, silent when it is already ours), an
  ``IterableDataset`` subclass defined in the file or arguments dp2ddp cannot see (DP020).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import libcst as cst
from libcst.codemod.visitors import AddImportsVisitor
from libcst.metadata import PositionProvider, ScopeProvider

from dp2ddp.names import DATALOADER, DISTRIBUTED_SAMPLER
from dp2ddp.transforms.call_flow import MAX_DEPTH, CallFlow, Path
from dp2ddp.transforms.data_nodes import (
    Shift,
    assigned_value,
    bare,
    bound_value,
    call_named,
    counts,
    dataset_name,
    dict_keys,
    enclosing_class,
    enclosing_function,
    insert_arg,
    inside,
    is_false,
    is_none,
    is_simple,
    iterated,
    keyword,
    name_of,
    one_per_line,
    reduces_counters,
    remove_arg,
    walk,
)
from dp2ddp.transforms.data_samplers import OwnSampler, drop_import, own_sampler

_NO_GRAD: frozenset[str] = frozenset(
    f"torch.{path}{name}"
    for path in ("", "autograd.", "autograd.grad_mode.")
    for name in ("no_grad", "inference_mode")
)
_ITERABLE_DATASET = frozenset(
    {"torch.utils.data.IterableDataset", "torch.utils.data.dataset.IterableDataset"}
)
_ZERO_TENSOR = frozenset({"torch.zeros", "torch.zeros_like", "torch.tensor", "torch.scalar_tensor"})
_DEVICE_COUNT = frozenset({"torch.cuda.device_count"})
_GPU_COUNT = re.compile(
    r"^(n_?gpus?|num_?gpus?|gpu_?count|number_of_gpus|n_?devices|num_?devices|device_count)$",
    re.IGNORECASE,
)
_DEVICE_LIST = re.compile(r"^(device_ids|gpu_ids|gpus|devices)$", re.IGNORECASE)
_EVAL_NAME = re.compile(
    r"(?:^|_)(?:val|valid|validation|test|testing|eval|evaluation|dev)"
    r"(?:_|$|loader|dataloader|dl|set|data)",
    re.IGNORECASE,
)
_POSITIONS = ("dataset", "batch_size", "shuffle", "sampler", "batch_sampler")
#: A rewritten one-line loader longer than this gets one argument per line.
_LINE_LIMIT = 99
_EVAL_SAMPLER = "ddp_eval_sampler"
_SAMPLER = "DistributedSampler"


@dataclass
class _Loader:
    """One `DataLoader(...)` call that will be sharded."""

    call: cst.Call
    args: dict[str, int]  # "dataset"/"batch_size"/"shuffle"/"sampler" -> index in call.args
    binding: cst.BaseExpression | None  # what the loader is assigned to
    statement: cst.BaseStatement | None  # the statement, directly in a block, that holds it
    own: OwnSampler | None  # a shuffle-only sampler that ours replaces
    #: (loop over the loader, the expression it iterates, how the loader got there)
    loops: list[tuple[cst.For, cst.BaseExpression, Path]] = field(default_factory=list)

    @property
    def name(self) -> str:
        if isinstance(self.binding, cst.Name):
            return self.binding.value
        if isinstance(self.binding, cst.Attribute):
            return self.binding.attr.value
        return ""


@dataclass
class _CallEdit:
    """How leave_Call rewrites one loader's arguments."""

    sampler: cst.BaseExpression | None  # None: the loader's own sampler is replaced instead
    replace: int | None  # index of the argument the sampler takes the place of
    drop: int | None  # index of an argument to remove (sampler=None beside shuffle=)
    batch: tuple[int, cst.BaseExpression] | None = None
    dataset: tuple[int, cst.BaseExpression] | None = None


class ShardDataLoaders(CallFlow):
    NAME = "data"
    DESCRIPTION = "Shard DataLoaders with DistributedSampler and keep batch-size semantics."
    TRIGGERS = ("DataLoader",)  # aliases too: `import DataLoader as DL` contains it

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self._edits: dict[cst.Call, _CallEdit] = {}
        self._samplers: dict[cst.Call, cst.Call] = {}  # RandomSampler(...) -> ours
        self._before: dict[cst.BaseStatement, list[cst.BaseStatement]] = {}
        self._after: dict[cst.BaseStatement, list[cst.BaseStatement]] = {}
        self._top: dict[cst.For, list[cst.BaseStatement]] = {}
        self._renames: dict[cst.For, str] = {}
        self._lines: list[str] = []
        self._indent = "    "
        self._iterable_classes: set[str] = set()

    # == analysis =======================================================================
    def visit_Module(self, node: cst.Module) -> bool:
        if not self.state.has_dataparallel or self.state.skip:
            return False
        self._lines = node.code.splitlines()
        self._indent = node.default_indent
        nodes = list(walk(node))
        self.index(nodes)
        self._iterable_classes = self._iterable_dataset_classes(nodes)
        loaders: dict[cst.Call, _Loader] = {}
        for call in self._calls:
            if self.matches(call.func, DATALOADER):
                loader = self._prepare(call)
                if loader is not None:
                    loaders[call] = loader
        for loop in (n for n in nodes if isinstance(n, cst.For)):
            for expr in iterated(loop.iter):
                for call, path in self._resolve(expr, loaders, 0):
                    if not any(seen is loop for seen, _, _ in loaders[call].loops):
                        loaders[call].loops.append((loop, expr, path))
        for loader in loaders.values():
            self._plan(loader)
        return True

    def _prepare(self, call: cst.Call) -> _Loader | None:
        """Map the loader's arguments; warn and return None when it must stay as it is."""
        args: dict[str, int] = {}
        positional = 0
        for index, arg in enumerate(call.args):
            if arg.star == "*":
                self.warn(call, "DP020", "positional arguments passed with *")
                return None
            if arg.star == "**" or arg.keyword is None and positional >= len(_POSITIONS):
                continue
            key = arg.keyword.value if arg.keyword else _POSITIONS[positional]
            positional += arg.keyword is None
            args[key] = index
        own = None
        for key in ("sampler", "batch_sampler"):
            if key in args and not is_none(call.args[args[key]].value):
                sampler = call.args[args[key]].value
                if key == "sampler" and "dataset" in args:
                    own = own_sampler(self, call, sampler, args)
                    if own is not None:
                        continue
                if not self._is_ours(sampler):
                    self.warn(call, "DP009", f"{key}={self.code(sampler)}")
                return None
        if "dataset" not in args:
            self.warn(call, "DP020", "DataLoader without a dataset argument")
            return None
        if positional > 3:
            self.warn(call, "DP020", "sampler and later arguments passed by position")
            return None
        for arg in call.args:
            if arg.star == "**" and not self._kwargs_are_safe(arg.value, args):
                self.warn(call, "DP020", f"arguments passed as **{self.code(arg.value)}")
                return None
        dataset = call.args[args["dataset"]].value
        if self._is_iterable_dataset(dataset):
            self.warn(call, "DP020", f"{self.code(dataset)} is an IterableDataset")
            return None
        binding, statement = self._binding(call)
        return _Loader(call, args, binding, statement, own)

    def _plan(self, loader: _Loader) -> None:
        call, args, own = loader.call, loader.args, loader.own
        shuffle = call.args[args["shuffle"]].value if "shuffle" in args else None
        if own is not None:  # its shuffle= can only be False: the sampler decides
            shuffle = cst.Name("True" if own.shuffle else "False")
        shuffled = shuffle is not None and not is_false(shuffle)
        label = self.code(loader.binding) if loader.binding is not None else "the loader"
        evaluation = not shuffled and (
            bool(_EVAL_NAME.search(loader.name))
            or bool(loader.loops)
            and all(self._in_eval_context(loop) for loop, _, _ in loader.loops)
        )
        shared = self._shared_dataset(loader)
        if shared is None:
            return
        dataset, hoisted = shared
        if evaluation:
            self.state.helpers.add("eval_sampler")
            sampler = call_named(_EVAL_SAMPLER, cst.Arg(dataset))
            what = f"{label} evaluates a disjoint slice per rank (ddp_eval_sampler)"
        else:
            AddImportsVisitor.add_needed_import(
                self.context, "torch.utils.data.distributed", _SAMPLER
            )
            value = shuffle.deep_clone() if shuffle is not None else cst.Name("False")
            sampler = call_named(_SAMPLER, cst.Arg(dataset), keyword("shuffle", value))
            what = f"{label} sharded with DistributedSampler(shuffle={self.code(value)})"
        hidden = [a.value for a in call.args if a.star == "**"]
        if "batch_size" not in args:
            for value in hidden:
                keys = self._kwargs_keys(value)
                if keys is None or "batch_size" in keys:
                    self.warn(value, "DP013", f"batch_size may come from **{self.code(value)}")
                    break
            else:
                what += "; no batch_size: each process loads 1 sample, the global batch is "
                what += "WORLD_SIZE"
        if own is not None:
            self._samplers[own.call] = sampler
            drop_import(self, own.call.func)
            what += f" in place of {self.code(own.call)}"
            edit = self._edits[call] = _CallEdit(None, None, None)
        else:
            replace = args.get("shuffle", args.get("sampler"))
            drop = args.get("sampler") if "shuffle" in args else None
            edit = self._edits[call] = _CallEdit(sampler, replace, drop)
        if hoisted is not None:
            edit.dataset = (args["dataset"], hoisted)
        self.record(call, what)
        if "batch_size" in args:
            self._plan_batch(loader, edit)
        if evaluation:
            self._plan_eval(loader)
            return
        self._plan_train_metrics(loader)
        if shuffled:
            self._plan_set_epoch(loader)

    # -- the dataset ----------------------------------------------------------------------
    def _shared_dataset(self, loader: _Loader) -> tuple[cst.BaseExpression, cst.Name | None] | None:
        """The dataset for the sampler, and the name a dataset built inline was bound to."""
        dataset = loader.call.args[loader.args["dataset"]].value
        if is_simple(dataset):
            return bare(dataset.deep_clone()), None
        statement = loader.statement
        if statement is None or not self._can_hoist(loader.call, statement):
            self.warn(loader.call, "DP020", "dataset built inline here: bind it to a name first")
            return None
        name = self._free_name(dataset_name(loader.name), statement)
        value = self._reindent(dataset, statement, len(name) + 3)
        hoisted = cst.SimpleStatementLine(
            body=[cst.Assign(targets=[cst.AssignTarget(cst.Name(name))], value=value)]
        )
        self._before.setdefault(statement, []).append(hoisted)
        self.record(dataset, f"bound the inline dataset to {name}, shared by loader and sampler")
        return cst.Name(name), cst.Name(name)

    def _can_hoist(self, call: cst.Call, statement: cst.BaseStatement) -> bool:
        """Evaluating the dataset one statement earlier changes nothing observable."""
        if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) != 1:
            return False
        child: cst.CSTNode = call
        node = self.parent(call)
        while node is not None and node is not statement:
            if isinstance(
                node,
                (cst.Lambda, cst.IfExp, cst.BooleanOperation, cst.BaseComp, cst.FunctionDef),
            ):
                return False
            child, node = node, self.parent(node)
        if isinstance(statement, cst.For):
            return child is statement.iter
        return isinstance(statement, cst.SimpleStatementLine)

    def _free_name(self, base: str, statement: cst.BaseStatement) -> str:
        taken = self._names(self._scope_root(statement))
        scope = self.get_metadata(ScopeProvider, statement, None)
        if scope is not None:
            taken |= {a.name for a in scope.globals.assignments}
        name, number = base, 1
        while name in taken:
            number += 1
            name = f"{base}_{number}"
        return name

    def _reindent(
        self, expr: cst.BaseExpression, statement: cst.BaseStatement, prefix: int
    ) -> cst.BaseExpression:
        """Move a multi-line expression to `name = ` in front of `statement`, keeping its shape.

        Hanging indents follow the line they start on, aligned ones the opening bracket.
        """
        code = self.code(expr)
        if "\n" not in code:
            return expr.deep_clone()
        start = self.get_metadata(PositionProvider, expr).start
        indent = self.get_metadata(PositionProvider, statement).start.column
        line = self._lines[start.line - 1]
        first = code.split("\n", 1)[0].split("#", 1)[0].rstrip()
        if first.endswith(("(", "[", "{")):
            delta = indent - (len(line) - len(line.lstrip()))
        else:
            delta = indent + prefix - start.column
        return expr.deep_clone().visit(Shift(delta))  # type: ignore[return-value]

    # -- batch size -----------------------------------------------------------------------
    def _plan_batch(self, loader: _Loader, edit: _CallEdit) -> None:
        index = loader.args["batch_size"]
        value = loader.call.args[index].value
        text = self.code(value)
        if is_none(value):
            self.warn(value, "DP013", "batch_size=None: each item is a whole per-process batch")
            return
        if isinstance(value, cst.Call) and name_of(value.func) == "ddp_per_rank_batch":
            return
        per_gpu = self._strip_gpu_count(value)
        if per_gpu is not None:
            edit.batch = (index, bare(per_gpu))
            self.record(value, f"batch_size {text} -> {self.code(per_gpu)} per process")
        elif any(self._is_gpu_count(n) for n in walk(value)):
            self.warn(value, "DP013", f"batch_size={text}")
        elif self.state.options.per_process_batch:
            self.record(
                value,
                f"batch_size {text} is per process now: the global batch grows with WORLD_SIZE",
            )
        else:
            self.state.helpers.add("per_rank_batch")
            edit.batch = (index, call_named("ddp_per_rank_batch", cst.Arg(value.deep_clone())))
            self.record(value, f"batch_size {text} is the global batch: split over WORLD_SIZE")

    def _strip_gpu_count(self, expr: cst.BaseExpression) -> cst.BaseExpression | None:
        """`X * n_gpu` / `n_gpu * X` (also inside a product chain) -> `X`."""
        if not (isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Multiply)):
            return None
        if self._is_gpu_count(expr.right):
            return expr.left.deep_clone()
        if self._is_gpu_count(expr.left):
            return expr.right.deep_clone()
        for side in ("left", "right"):
            inner = self._strip_gpu_count(getattr(expr, side))
            if inner is not None:
                return expr.deep_clone().with_changes(**{side: inner})
        return None

    def _is_gpu_count(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Call):
            if self.matches(node.func, _DEVICE_COUNT):
                return True
            name = name_of(node.func)
            values = [a.value for a in node.args]
            if name == "len" and len(values) == 1:
                return bool(_DEVICE_LIST.match(name_of(values[0])))
            if name == "max" and len(values) == 2:
                return any(self._is_gpu_count(v) for v in values)
            return False
        return isinstance(node, (cst.Name, cst.Attribute)) and bool(_GPU_COUNT.match(name_of(node)))

    # -- set_epoch ------------------------------------------------------------------------
    def _plan_set_epoch(self, loader: _Loader) -> None:
        found = unknown = False
        done: set[tuple[cst.CSTNode, str]] = set()
        for loop, expr, path in loader.loops:
            for epoch_loop, receiver in self._loops_around(loop, expr, path, 0):
                if epoch_loop is None:
                    unknown = True
                elif not isinstance(epoch_loop, cst.Module):  # the module: a single pass
                    found = True
                    key = (epoch_loop, self.code(receiver) if receiver is not None else "")
                    if key not in done:
                        done.add(key)
                        self._insert_set_epoch(loader, epoch_loop, receiver)
        if not found and (unknown or not loader.loops):
            label = self.code(loader.binding) if loader.binding is not None else "this loader"
            where = (
                f"no loop found around the loop over {label}"
                if loader.loops
                else f"no loop over {label} found"
            )
            self.warn(loader.call, "DP011", where)

    def _insert_set_epoch(
        self,
        loader: _Loader,
        loop: cst.For | cst.While,
        receiver: cst.BaseExpression | None,
    ) -> None:
        if isinstance(loop, cst.While):
            self.warn(loop, "DP011", "the loop around it is a while loop")
            return
        if receiver is None or not is_simple(receiver):
            self.warn(loop, "DP011", "the loader has no name in this loop")
            return
        if not isinstance(loop.body, cst.IndentedBlock):
            self.warn(loop, "DP011", "one-line epoch loop")
            return
        prefix = self.code(receiver)
        if any(
            isinstance(n, cst.Call)
            and isinstance(n.func, cst.Attribute)
            and n.func.attr.value == "set_epoch"
            and self.code(n.func.value).startswith(prefix)
            for n in walk(loop.body)
        ):
            return
        epoch = self._epoch_variable(loop)
        if epoch is None:
            self.warn(loop, "DP011", f"`{self.code(loop.target)}` is not an epoch number")
            return
        sampler = cst.Attribute(value=bare(receiver.deep_clone()), attr=cst.Name("sampler"))
        statement = cst.SimpleStatementLine(
            body=[
                cst.Expr(
                    cst.Call(
                        func=cst.Attribute(value=sampler, attr=cst.Name("set_epoch")),
                        args=[cst.Arg(cst.Name(epoch))],
                    )
                )
            ]
        )
        if loader.statement is not None and inside(loader.statement, loop.body, self):
            # The loader is rebuilt every epoch: set its epoch once it exists.
            self._after.setdefault(loader.statement, []).append(statement)
        else:
            self._top.setdefault(loop, []).append(statement)
        self.record(loop, f"{prefix}.sampler.set_epoch({epoch}) reshuffles every epoch")

    def _epoch_variable(self, loop: cst.For) -> str | None:
        target = loop.target
        if isinstance(target, cst.Name):
            if target.value == "_":
                if loop in self._renames:
                    return self._renames[loop]
                if "epoch" in self._names(self._scope_root(loop)):
                    return None
                self._renames[loop] = "epoch"
                self.record(target, "named the epoch loop's variable `epoch` for set_epoch")
                return "epoch"
            if "epoch" in target.value.lower() or counts(loop.iter):
                return target.value
            return None
        if isinstance(target, (cst.Tuple, cst.List)):
            names = [e.value for e in target.elements if isinstance(e.value, cst.Name)]
            for name in names:
                if "epoch" in name.value.lower():
                    return name.value
            first = target.elements[0].value if target.elements else None
            if (
                isinstance(loop.iter, cst.Call)
                and name_of(loop.iter.func) == "enumerate"
                and isinstance(first, cst.Name)
                and first.value != "_"
            ):
                return first.value
        return None

    # -- evaluation -----------------------------------------------------------------------
    def _plan_eval(self, loader: _Loader) -> None:
        if not loader.loops:
            self.warn(loader.call, "DP015", "no loop over this evaluation loader found")
        for loop, expr, _ in loader.loops:
            if loop in self._after and any(reduces_counters(s) for s in self._after[loop]):
                continue
            self._check_batch_count(loop, expr)
            counters = self._counters(loop)
            lists = self._collected(loop)
            if lists:
                self.warn(loop, "DP015", f"{', '.join(lists)} only collect this rank's slice")
            elif not counters:
                self.warn(loop, "DP015")
            self._reduce_after(loop, counters, "after evaluation")

    def _plan_train_metrics(self, loader: _Loader) -> None:
        """`total / len(loader.dataset)` after a training loop: the counter must be global."""
        for loop, expr, _ in loader.loops:
            if self._normalised_by_dataset(loop, expr):
                self._reduce_after(
                    loop, self._counters(loop), f"(divided by len({self.code(expr)}.dataset))"
                )

    def _reduce_after(self, loop: cst.For, counters: list[str], why: str) -> None:
        """`a, b = ddp_all_reduce_sum(a, b)` right after `loop`, once."""
        if not counters or reduces_counters(self._next_statement(loop)):
            return
        if any(reduces_counters(s) for s in self._after.get(loop, [])):
            return
        self.state.helpers.add("all_reduce_sum")
        names = [cst.Name(n) for n in counters]
        target: cst.BaseAssignTargetExpression = (
            names[0]
            if len(names) == 1
            else cst.Tuple([cst.Element(n) for n in names], lpar=[], rpar=[])
        )
        reduce = cst.SimpleStatementLine(
            body=[
                cst.Assign(
                    targets=[cst.AssignTarget(target)],
                    value=call_named("ddp_all_reduce_sum", *(cst.Arg(n) for n in names)),
                )
            ]
        )
        self._after.setdefault(loop, []).append(reduce)
        self.record(loop, f"summed {', '.join(counters)} over all ranks {why}")

    def _normalised_by_dataset(self, loop: cst.For, expr: cst.BaseExpression) -> bool:
        end = self.get_metadata(PositionProvider, loop).end.line
        dataset = f"{self.code(expr)}.dataset"
        return any(
            isinstance(node, cst.Call)
            and name_of(node.func) == "len"
            and len(node.args) == 1
            and self.code(node.args[0].value) == dataset
            and self.get_metadata(PositionProvider, node).start.line > end
            for node in walk(self._scope_root(loop), skip_scopes=True)
        )

    def _counters(self, loop: cst.For) -> list[str]:
        names: list[str] = []
        for node in walk(loop.body, skip_scopes=True):
            if (
                isinstance(node, cst.AugAssign)
                and isinstance(node.operator, cst.AddAssign)
                and isinstance(node.target, cst.Name)
                and node.target.value not in names
            ):
                names.append(node.target.value)
        return [n for n in names if self._is_counter(self._initial_value(loop, n))]

    def _check_batch_count(self, loop: cst.For, expr: cst.BaseExpression) -> None:
        """`total / len(loader)` after the loop divides a global sum by this rank's batches."""
        start = self.get_metadata(PositionProvider, loop).start.line
        text = self.code(expr)
        for node in walk(self._scope_root(loop), skip_scopes=True):
            if (
                isinstance(node, cst.Call)
                and name_of(node.func) == "len"
                and len(node.args) == 1
                and self.code(node.args[0].value) == text
                and self.get_metadata(PositionProvider, node).start.line > start
            ):
                self.warn(node, "DP015", f"len({text}) counts this rank's batches only")

    def _collected(self, loop: cst.For) -> list[str]:
        """Lists bound to `[]` before the loop and appended to in it (predictions, losses)."""
        names: list[str] = []
        for node in walk(loop.body, skip_scopes=True):
            if (
                isinstance(node, cst.Call)
                and isinstance(node.func, cst.Attribute)
                and node.func.attr.value in ("append", "extend")
                and isinstance(node.func.value, cst.Name)
                and node.func.value.value not in names
            ):
                initial = self._initial_value(loop, node.func.value.value)
                if isinstance(initial, cst.List) and not initial.elements:
                    names.append(node.func.value.value)
        return names

    def _initial_value(self, loop: cst.For, name: str) -> cst.BaseExpression | None:
        """The value `name` was last bound to before `loop`, in its block or an outer one."""
        child: cst.CSTNode = loop
        node = self.parent(loop)
        while node is not None and not isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            if isinstance(node, (cst.IndentedBlock, cst.Module)):
                body = list(node.body)
                at = next(i for i, s in enumerate(body) if s is child)
                for statement in reversed(body[:at]):
                    bound, value = bound_value(statement, name)
                    if bound:
                        return value
            child, node = node, self.parent(node)
        return None

    def _is_counter(self, value: cst.BaseExpression | None) -> bool:
        if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
            value = value.expression
        if isinstance(value, (cst.Integer, cst.Float)):
            return True
        return isinstance(value, cst.Call) and self.matches(value.func, _ZERO_TENSOR)

    def _next_statement(self, statement: cst.BaseStatement) -> cst.CSTNode | None:
        block = self.parent(statement)
        if not isinstance(block, (cst.IndentedBlock, cst.Module)):
            return None
        body = list(block.body)
        at = next(i for i, s in enumerate(body) if s is statement)
        return body[at + 1] if at + 1 < len(body) else None

    def _in_eval_context(self, loop: cst.For) -> bool:
        """Under `with torch.no_grad()`/`inference_mode()`, or after `model.eval()`."""
        node = self.parent(loop)
        while node is not None and not isinstance(node, (cst.FunctionDef, cst.Module)):
            if isinstance(node, cst.With) and any(
                self._is_no_grad(item.item) for item in node.items
            ):
                return True
            node = self.parent(node)
        if isinstance(node, cst.FunctionDef):
            if any(self._is_no_grad(d.decorator) for d in node.decorators):
                return True
            line = self.get_metadata(PositionProvider, loop).start.line
            mode = "train"
            for call in walk(node.body, skip_scopes=True):
                if (
                    isinstance(call, cst.Call)
                    and isinstance(call.func, cst.Attribute)
                    and call.func.attr.value in ("eval", "train")
                    and self.get_metadata(PositionProvider, call).start.line < line
                ):
                    off = (
                        call.func.attr.value == "train"
                        and bool(call.args)
                        and is_false(call.args[0].value)
                    )
                    mode = "eval" if call.func.attr.value == "eval" or off else "train"
            return mode == "eval"
        return False

    def _is_no_grad(self, expr: cst.BaseExpression) -> bool:
        func = expr.func if isinstance(expr, cst.Call) else expr
        if self.matches(func, _NO_GRAD):
            return True
        return (
            isinstance(expr, cst.Call)
            and name_of(expr.func) == "set_grad_enabled"
            and len(expr.args) == 1
            and is_false(expr.args[0].value)
        )

    # -- names, scopes and calls ----------------------------------------------------------
    def _resolve(
        self, expr: cst.BaseExpression, loaders: dict[cst.Call, _Loader], depth: int
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
        for assignment in self._referents(expr):
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
        """Already a DistributedSampler or dp2ddp's evaluation sampler (a second run)."""
        if isinstance(sampler, cst.Name):
            values = [assigned_value(a.node, self) for a in self._referents(sampler)]
            return bool(values) and all(v is not None and self._is_ours(v) for v in values)
        return isinstance(sampler, cst.Call) and (
            self.matches(sampler.func, DISTRIBUTED_SAMPLER)
            or name_of(sampler.func) == _EVAL_SAMPLER
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
        referents = self._referents(expr)
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
                    self.matches(b.value, _ITERABLE_DATASET) or name_of(b.value) in found
                    for b in cls.bases
                ):
                    found.add(cls.name.value)
                    changed = True
        return found

    def _is_iterable_dataset(self, dataset: cst.BaseExpression) -> bool:
        if isinstance(dataset, cst.Name):
            values = [assigned_value(a.node, self) for a in self._referents(dataset)]
            return any(v is not None and self._is_iterable_dataset(v) for v in values)
        return isinstance(dataset, cst.Call) and name_of(dataset.func) in self._iterable_classes

    # == rewriting ======================================================================
    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if original_node in self._samplers:
            return self._samplers[original_node].with_changes(
                lpar=updated_node.lpar, rpar=updated_node.rpar
            )
        edit = self._edits.get(original_node)
        if edit is None:
            return updated_node
        args = list(updated_node.args)
        for change in (edit.batch, edit.dataset):
            if change is not None:
                index, value = change
                args[index] = args[index].with_changes(value=value)
        if edit.sampler is not None:
            sampler_arg = keyword("sampler", edit.sampler, like=args)
            if edit.replace is not None:
                args[edit.replace] = sampler_arg.with_changes(comma=args[edit.replace].comma)
            else:
                at = next((i for i, a in enumerate(args) if a.star), len(args))
                args = insert_arg(args, at, sampler_arg, updated_node.whitespace_before_args)
        if edit.drop is not None:
            args = remove_arg(args, edit.drop)
        rewritten = updated_node.with_changes(args=args)
        if self._too_long(original_node, rewritten):
            rewritten = one_per_line(rewritten, self._indent)
        return rewritten

    def _too_long(self, original: cst.Call, rewritten: cst.Call) -> bool:
        """`x = DataLoader(...)` with all arguments on one line, which the new ones push past
        the line limit. Arguments on lines of their own, or with comments, stay as written."""
        if not isinstance(self.parent(original), (cst.Assign, cst.AnnAssign)):
            return False
        arguments = "".join(self.code(a) for a in original.args).strip()
        if "\n" in arguments or "#" in arguments:
            return False
        position = self.get_metadata(PositionProvider, original)
        source = self._lines[position.start.line - 1 : position.end.line]
        old, new = self.code(original).split("\n"), self.code(rewritten).split("\n")
        if not len(source) == len(old) == len(new):
            return False
        return any(
            len(line) - len(before) + len(after) > max(_LINE_LIMIT, len(line))
            for line, before, after in zip(source, old, new, strict=True)
        )

    def leave_For(self, original_node: cst.For, updated_node: cst.For) -> cst.For:
        name = self._renames.get(original_node)
        if name is not None:
            updated_node = updated_node.with_changes(target=cst.Name(name))
        top = self._top.get(original_node)
        if top and isinstance(updated_node.body, cst.IndentedBlock):
            body = updated_node.body
            updated_node = updated_node.with_changes(
                body=body.with_changes(body=[*top, *body.body])
            )
        return updated_node

    def leave_IndentedBlock(
        self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        body = self._splice(original_node.body, updated_node.body)
        return updated_node if body is None else updated_node.with_changes(body=body)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        body = self._splice(original_node.body, updated_node.body)
        return updated_node if body is None else updated_node.with_changes(body=body)

    def _splice(
        self,
        original: Sequence[cst.BaseStatement],
        updated: Sequence[cst.BaseStatement],
    ) -> list[cst.BaseStatement] | None:
        if not any(s in self._before or s in self._after for s in original):
            return None
        body: list[cst.BaseStatement] = []
        for old, new in zip(original, updated, strict=True):
            hoisted = self._before.get(old, [])
            if hoisted and isinstance(new, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                # Comments above the statement now introduce the new first line.
                body.append(hoisted[0].with_changes(leading_lines=new.leading_lines))
                body.extend(hoisted[1:])
                new = new.with_changes(leading_lines=[])
            body.append(new)
            body.extend(self._after.get(old, []))
        return body
