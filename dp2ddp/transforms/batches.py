"""Split training batches that do not come from a DataLoader, as DataParallel did.

DataParallel cut whatever batch reached the wrapped model along its `dim` and gave GPU r
the r-th contiguous part. Under DDP only a sampler shards data, so a training loop fed by
anything else (an iterator object, a generator, `range` with slices of a tensor, a
`get_batch(source, i)` helper) would train every rank on the same batches. This pass finds
those loops (loops calling `.backward()`/`optimizer.step()`, whatever module they are in)
and gives each rank its part of every global batch, along DataParallel's `dim` (the wrap's
`dim=`, 0 where not given or where the wrap is in another module of the program):

* a loop whose target receives the batch (`for x, y in batches`, `for i, (data, target,
  n) in enumerate(it)`): first thing in the body,
  `x, y = ddp_shard_batch((x, y), dim=D)`: every tensor of the batch is cut along D, inputs
  and targets together (templates/helpers/shard_batch.py.j2; it raises where the tensors
  disagree along D, so a misaligned split cannot pass in silence);
* a `range` loop whose body builds the batch in a statement of its own
  (`xb, yb = X[i:i + bs], Y[i:i + bs]`, `x, y = next(it)`, `data, t = get_batch(src, i)`),
  or a `while` loop's `x, y = next(it)`: the same split right after that statement;
* a `get_batch(source, i)` helper of this module that reshapes what it returns (word
  language models flatten the targets, `source[i+1:i+1+n].view(-1)`, so a split of its
  result would not keep inputs and targets aligned): the split happens at the source
  instead, `get_batch(ddp_shard_batch(source, dim=D), i)`, which is only right when the
  helper steps along another dimension than D (it slices rows, D is 1: a (sequence, batch)
  tensor whose columns are the batch). The batch size the source was batchified with
  (`source = batchify(data, B)`) then sizes per-batch state in the loop's function
  (`model.init_hidden(B)`): each rank holds B // WORLD_SIZE columns, so it becomes
  `ddp_per_rank_batch(B)`.

With `--per-process-batch` each rank takes whole batches in turn instead
(`for x, y in ddp_rank_batches(batches)`): the batch keeps its per-process size and the
global batch is WORLD_SIZE of them, as for DataLoaders.

Where the split cannot be shown right, DP037 names the loop's iterable and nothing is
changed (slices inside expressions, a helper this module cannot see, a helper that
reshapes along the split dimension, targets that are not plain names, a `dim` that is not
a literal). Loops over DataLoaders are the data pass's; evaluation loops (no backward)
are left whole: every rank evaluates everything, and the figures are the original's.
"""

from __future__ import annotations

import re

import libcst as cst

from dp2ddp.flow import DefUse, Origin, code, origins, view
from dp2ddp.flow.origins import _argument
from dp2ddp.transforms._support.names import DATALOADER
from dp2ddp.transforms._support.nodes import (
    ITER_WRAPPERS,
    NO_GRAD,
    assigned_value,
    call_named,
    counts,
    iterated,
    name_of,
    variables_under,
    walk,
)
from dp2ddp.transforms.data.imported import LoaderImports
from dp2ddp.transforms.data.plan import Loader
from dp2ddp.transforms.hazards.scopes import is_training_loop, target_names

SHARD = "ddp_shard_batch"
SAME_RANDOM = "ddp_same_random"
#: Library calls whose result is sized by their arguments: state built for the batch.
_FACTORIES = frozenset({"zeros", "ones", "empty", "full", "randn", "rand", "normal"})
#: Factories sized like a tensor they are given (sized by the batch they meet).
_LIKE = frozenset({"zeros_like", "ones_like", "full_like", "empty_like", "randn_like", "rand_like"})
#: Calls given the model's output that compare nothing with it.
_NOT_COMPARING = frozenset({"print", "format", "append", "extend", "write", "log", "info"})
#: Builtins and library calls whose result is a number or a size, not a batch.
_SCALARS = frozenset({"len", "min", "max", "int", "float", "size", "range", "item", "numel"})
#: Methods that move data across the split dim (a source split before them is not the
#: batch split after them).
_ACROSS = frozenset({"t", "transpose", "permute", "flatten", "movedim", "swapaxes"})
#: torch's random draws (numpy's and Python's: their module prefix).
_TORCH_DRAWS = frozenset({"torch.randperm", "torch.randint", "torch.multinomial"})
ROUNDS = "ddp_rank_batches"
PER_RANK = "ddp_per_rank_batch"
#: Methods that change a tensor's shape: a helper returning their result may not keep the
#: batch along its dimension.
_RESHAPES = frozenset(
    {"view", "reshape", "flatten", "t", "transpose", "permute", "squeeze", "unsqueeze"}
    | {"view_as", "reshape_as", "contiguous_view", "unflatten", "movedim", "swapaxes"}
)


class ShardBatches(LoaderImports):
    """Reads loaders as the data pass does (LoaderImports: bindings, calls, loaders of other
    modules), to leave loops over DataLoaders to it; changes nothing of theirs."""

    NAME = "batches"
    DESCRIPTION = (
        "Split training batches that do not come from a DataLoader along DataParallel's dim."
    )
    TRIGGERS = ("backward", ".step(")

    def visit_Module(self, node: cst.Module) -> bool:
        #: statement -> statements to insert after it; loop -> statements at its top
        self._split_after: dict[cst.CSTNode, list[cst.BaseStatement]] = {}
        self._split_top: dict[cst.For, list[cst.BaseStatement]] = {}
        #: expressions replaced by a new one (iterables, sources, batch-size arguments)
        self._swap: dict[cst.CSTNode, cst.BaseExpression] = {}
        if not self.state.has_dataparallel and self.state.program is None:
            return False
        nodes = list(walk(node))
        self.index(nodes)
        self._loader_calls = {
            c: Loader(c, {}, *self._binding(c), None)
            for c in self._calls
            if self.matches(c.func, DATALOADER)
        }
        self._functions = {n.name.value: n for n in node.body if isinstance(n, cst.FunctionDef)}
        self._definitions: dict[str, cst.FunctionDef | cst.ClassDef] = {
            n.name.value: n for n in node.body if isinstance(n, (cst.FunctionDef, cst.ClassDef))
        }
        dims = set(self.state.scatter_dims)
        self._wraps_here = bool(dims)
        if not dims:  # a module of a program that does not wrap: the program's wraps
            dims = set(self.state.hints.scatter_dims)
        self._dim: int | None = 0
        self._dim_text = "0"
        if dims:
            (text,) = dims if len(dims) == 1 else (None,)
            self._dim = int(text) if text is not None and text.isdigit() else None
            self._dim_text = text if text is not None else " / ".join(sorted(dims))
        self._known = bool(dims)
        handled: list[cst.For | cst.While] = []
        self._warned: set[cst.CSTNode] = set()
        for loop in (n for n in nodes if isinstance(n, (cst.For, cst.While))):
            if any(self._inside(loop, outer) for outer in handled):
                continue
            if not is_training_loop(loop, self.qualified_names):
                continue
            header = loop.iter if isinstance(loop, cst.For) else loop.test
            if SHARD in self.code(loop.body) or ROUNDS in self.code(header):
                handled.append(loop)  # migrated before: a fixed point
                continue
            # a while loop's batches (`x, y = next(it)`, `xb = X[n * bs:(n + 1) * bs]`) are
            # the proof's (`_prove`): split where they enter the loop
            planned = isinstance(loop, cst.For) and self._plan_loop(loop)
            if planned:
                handled.append(loop)
        self._same_random: set[cst.CSTNode] = set()
        if self._dim is not None:
            self._prove(node, nodes)
        return True

    # == analysis =======================================================================
    def _inside(self, node: cst.CSTNode, ancestor: cst.CSTNode) -> bool:
        current: cst.CSTNode | None = self.parent(node)
        while current is not None:
            if current is ancestor:
                return True
            current = self.parent(current)
        return False

    def _plan_loop(self, loop: cst.For) -> bool:
        """Plan the split of one training loop; True when it is settled (split or warned)."""
        sources = iterated(loop.iter)
        seen = [u for s in sources for u in self._unwrapped(s, 0)]
        if any(counts(s) for s in seen):
            return self._plan_range_loop(loop)
        if any(self._is_loader(s) for s in seen):
            return True  # the data pass shards it (or warns)
        if self.state.wrapped and not self._feeds_wrapped(loop.body):
            return False
        iterable = self.code(self._batch_source(loop.iter))
        batch = self._batch_target(loop)
        if batch is not None and _plain_target(batch):
            used = {n.value for n in variables_under(loop.body)}
            if not target_names(batch) & used:
                return False  # a step count, not a batch (`for step in bar:`)
        if batch is None or not _plain_target(batch):
            self._warn(loop, iterable, "the loop's batch is not bound to plain names")
            return True
        if self._dim is None:
            self._warn(loop, iterable, f"DataParallel's dim is {self._dim_text}")
            return True
        micro = self._micro_batches(loop, target_names(batch))
        if micro is not None:
            self._warn(loop, iterable, micro)
            return True
        if self.state.options.per_process_batch:
            self._rounds(loop, iterable)
            return True
        self._split_top[loop] = [self._split_statement(batch)]
        self.state.helpers.add("shard_batch")
        self.record(loop, f"every batch of {iterable} split {self._along()}: {self._each()}")
        return True

    def _plan_range_loop(self, loop: cst.For) -> bool:
        counters = target_names(loop.target)
        if not counters:
            return False
        iterable = self.code(self._batch_source(loop.iter))
        producers: list[tuple[cst.SimpleStatementLine, cst.Assign]] = []
        selectors: list[cst.Assign] = []
        body = loop.body.body if isinstance(loop.body, cst.IndentedBlock) else []
        for statement in body:
            if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
                continue
            assign = statement.body[0]
            if isinstance(assign, cst.Assign) and self._produces(assign.value, counters):
                if self._selects_only(assign, loop):
                    selectors.append(assign)
                else:
                    producers.append((statement, assign))
        produced = {id(assign.value) for _, assign in producers}
        inline = [
            n
            for n in walk(loop.body)
            if isinstance(n, cst.Subscript)
            and _slices_with(n, counters)
            and not any(
                n is value or self._inside(n, value) for value in _values(producers, produced)
            )
            and not any(self._inside(n, selector) for selector in selectors)
        ]
        if not producers:
            if inline:
                what = f"{self.code(inline[0])} is sliced inside an expression"
                self._warn(loop, iterable, what)
                return True
            return False  # not a loop over batches (an epoch loop, say): look inside
        if self._dim is None:
            self._warn(loop, iterable, f"DataParallel's dim is {self._dim_text}")
            return True
        if inline:
            self._warn(loop, iterable, f"{self.code(inline[0])} is sliced inside an expression")
            return True
        for _, assign in producers:
            if not all(_plain_target(t.target) for t in assign.targets):
                self._warn(loop, iterable, "the batch is not bound to plain names")
                return True
            helper = self._helper(assign.value, counters)
            if isinstance(helper, cst.FunctionDef) and self._reshapes(helper):
                if self._dim == 0:
                    self._warn(
                        loop,
                        iterable,
                        f"{helper.name.value}() reshapes the batch it slices along dim 0",
                    )
                    return True
            elif helper is False:
                call = assign.value
                assert isinstance(call, cst.Call)
                self._warn(
                    loop, iterable, f"{self.code(call.func)}() is not defined in this module"
                )
                return True
        names = {n for _, a in producers for t in a.targets for n in target_names(t.target)}
        micro = self._micro_batches(loop, names)
        if micro is not None:
            self._warn(loop, iterable, micro)
            return True
        if self.state.options.per_process_batch:
            self._rounds(loop, iterable)
            return True
        for statement, assign in producers:
            helper = self._helper(assign.value, counters)
            if isinstance(helper, cst.FunctionDef) and self._reshapes(helper):
                continue  # split at its source by the proof (`_split_source_of`)
            target = assign.targets[-1].target
            self._split_after.setdefault(statement, []).append(self._split_statement(target))
            self.state.helpers.add("shard_batch")
            self.record(
                statement,
                f"{self.code(target)} (a batch of {iterable}) split {self._along()}: "
                f"{self._each()}",
            )
        return True

    def _selects_only(self, assign: cst.Assign, loop: cst.For) -> bool:
        """The statement binds an index array (`idx = perm[i:i + bs]`) the loop only uses
        to select the batch (`X[idx]`): the batch is what it selects (split by the proof,
        `_prove`), not the index array (which ddp_shard_batch, splitting tensors, may
        not even cut)."""
        names = {n for t in assign.targets for n in target_names(t.target)}
        uses = [
            n
            for n in walk(loop.body)
            if isinstance(n, cst.Name) and n.value in names and not self._inside(n, assign)
        ]
        return bool(uses) and all(
            any(isinstance(a, cst.SubscriptElement) for a in self._ancestors_to(n, loop))
            for n in uses
        )

    def _ancestors_to(self, node: cst.CSTNode, stop: cst.CSTNode | None) -> list[cst.CSTNode]:
        found = []
        current = self.parent(node)
        while current is not None and current is not stop:
            found.append(current)
            current = self.parent(current)
        return found

    def _micro_batches(self, loop: cst.For | cst.While, names: set[str]) -> str | None:
        """A batch cut into micro-batches of a fixed size by an inner loop (`for j in
        range(0, len(xb), 4): model(xb[j:j + 4])`): split, each rank would run fewer of
        them, and gradients summed over them would shrink by WORLD_SIZE."""
        inner = {
            name
            for n in walk(loop.body)
            if isinstance(n, cst.For) and any(counts(s) for s in iterated(n.iter))
            for name in target_names(n.target)
        }
        for n in walk(loop.body):
            if (
                isinstance(n, cst.Subscript)
                and isinstance(n.value, cst.Name)
                and n.value.value in names
                and _slices_with(n, inner)
            ):
                return (
                    f"{n.value.value} is cut into micro-batches of a fixed size "
                    f"({self.code(n)}): split, each rank would run fewer of them"
                )
        return None

    def _next_of_batches(self, value: cst.BaseExpression) -> bool:
        """`next(it)` of something that is not a DataLoader."""
        return (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Name)
            and value.func.value == "next"
            and bool(value.args)
            and not any(self._is_loader(u) for u in self._unwrapped(value.args[0].value, 0))
        )

    def _produces(self, value: cst.BaseExpression, counters: set[str]) -> bool:
        """The statement builds the batch: slices with the loop counter, `next(it)`, or a
        call given the counter (`get_batch(source, i)`)."""
        parts = value.elements if isinstance(value, cst.Tuple) else [value]
        for part in parts:
            part_value = part.value if isinstance(part, cst.Element) else part
            if isinstance(part_value, cst.Subscript) and _slices_with(part_value, counters):
                return True
        if isinstance(value, cst.Call):
            if name_of(value.func) == "next" and isinstance(value.func, cst.Name):
                return self._next_of_batches(value)
            if not any(v.value in counters for a in value.args for v in variables_under(a.value)):
                return False
            helper = self._helper(value, counters)
            if isinstance(helper, cst.FunctionDef):  # it slices what it is given
                return any(
                    isinstance(n, cst.Subscript)
                    and bool(n.slice)
                    and isinstance(n.slice[0].slice, cst.Slice)
                    for n in walk(helper.body)
                )
            return "batch" in name_of(value.func).lower()
        return False

    def _helper(
        self, value: cst.BaseExpression, counters: set[str]
    ) -> cst.FunctionDef | bool | None:
        """For `get_batch(source, i)`: its definition in this module, False where it is
        not one; None when the statement is not such a call."""
        if not isinstance(value, cst.Call) or (
            isinstance(value.func, cst.Name) and value.func.value == "next"
        ):
            return None
        if isinstance(value.func, cst.Name) and value.func.value in self._functions:
            return self._functions[value.func.value]
        return False

    def _reshapes(self, function: cst.FunctionDef) -> bool:
        return any(
            isinstance(n, cst.Call)
            and isinstance(n.func, cst.Attribute)
            and n.func.attr.value in _RESHAPES
            for n in walk(function.body)
        )

    def _module_root(self, node: cst.CSTNode) -> cst.CSTNode:
        current = node
        while (parent := self.parent(current)) is not None:
            current = parent
        return current

    def _unwrapped(self, expr: cst.BaseExpression, depth: int) -> list[cst.BaseExpression]:
        """`expr` and what it wraps: `bar` of `bar = tqdm(range(n))` -> range(n) too,
        `loaders[0]` -> loaders."""
        found = [expr]
        if depth > 3:
            return found
        if isinstance(expr, cst.Subscript):
            found += self._unwrapped(expr.value, depth + 1)
        elif isinstance(expr, cst.Call) and expr.args and self._wraps_iterable(expr):
            found += self._unwrapped(expr.args[0].value, depth + 1)
        elif isinstance(expr, cst.Name):
            for referent in self.referents(expr):
                value = assigned_value(referent.node, self)
                if isinstance(value, (cst.Call, cst.Subscript)):
                    found += self._unwrapped(value, depth + 1)
        return found

    def _wraps_iterable(self, call: cst.Call) -> bool:
        """enumerate(x), iter(x), tqdm(x) under any alias (`from tqdm import tqdm as bar`)."""
        return name_of(call.func) in ITER_WRAPPERS or any(
            n.startswith("tqdm.") or n.startswith("rich.progress.")
            for n in self.qualified_names(call.func)
        )

    def _is_loader(self, expr: cst.BaseExpression) -> bool:
        """A DataLoader of this module, one of another module of the program, or something
        named like one (a loader factory's result): the data pass's (it shards or warns).
        A value built by a class or function of this module that names no DataLoader
        (`train_loader = BatchIterator(...)`) is not one, whatever its name."""
        if self._resolve(expr, self._loader_calls, 0):
            return True
        if any(name in self.code(expr) for name, _ in self.state.loaders.unfollowed):
            return True  # DP027 names it
        origins = self._origins(expr, (), 0)
        for origin in origins:
            if self._is_exported(origin, self.state.loaders.exported):
                return True
        inner = expr
        if isinstance(inner, cst.Call) and name_of(inner.func) == "iter" and inner.args:
            inner = inner.args[0].value
        if isinstance(inner, cst.Call) and self.matches(inner.func, DATALOADER):
            return True
        calls = [o.call for o in origins if o.call is not None]
        if isinstance(inner, cst.Call):
            calls.append(inner)
        if calls and all(self._own_batches(call) for call in calls):
            return False
        if "loader" in self.code(expr).lower():
            return True
        return any(
            self.matches(call.func, DATALOADER) or "loader" in self.code(call.func).lower()
            for call in calls
        )

    def _own_batches(self, call: cst.Call) -> bool:
        """A call of a class or function of this module that names no DataLoader: batches
        of the script's own making (an iterator class, a generator)."""
        if not isinstance(call.func, cst.Name):
            return False
        definition = self._definitions.get(call.func.value)
        return definition is not None and "loader" not in self.code(definition).lower()

    def _feeds_wrapped(self, body: cst.CSTNode) -> bool:
        text = self.code(body)
        return any(re.search(rf"(?<![\w.]){re.escape(w)}\b", text) for w in self.state.wrapped)

    def _batch_source(self, expr: cst.BaseExpression) -> cst.BaseExpression:
        """What yields the batches, through enumerate()/tqdm() (not zip: all of it)."""
        while (
            isinstance(expr, cst.Call)
            and name_of(expr.func) in ITER_WRAPPERS - {"zip"}
            and expr.args
            and expr.args[0].keyword is None
        ):
            expr = expr.args[0].value
        return expr

    def _batch_target(self, loop: cst.For) -> cst.BaseExpression | None:
        target = loop.target
        if isinstance(loop.iter, cst.Call) and name_of(loop.iter.func) == "enumerate":
            if isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2:
                return target.elements[1].value
            return None
        return target

    # == the proof: every batch reaching the model is this rank's part =================
    def _prove(self, module: cst.Module, nodes: list[cst.CSTNode]) -> None:
        """For each call of a wrapped model in a training loop, follow every tensor it is
        given (and the targets its output is compared with) back to its sources
        (dp2ddp/flow): a loader (the data pass shards it), a split of this pass, the
        model's own output, a constant, state the loop builds (sized per rank here), or a
        batch nobody split: split it where it enters the loop (or, along a dim other than
        the one the loop steps along, where the source is built), else DP047 with the flow."""
        if not self.state.wrapped:
            return
        wrapped = set(self.state.wrapped)
        flow: DefUse | None = None  # built for the first call that needs it
        for call in (n for n in nodes if isinstance(n, cst.Call)):
            if self.code(call.func) not in wrapped:
                continue
            loop = self._training_loop(call)
            if loop is None or SHARD in self.code(loop.body):
                continue
            if any(a in self._warned for a in (loop, *self._ancestors_to(loop, module))):
                continue  # DP037 said it
            if any(self._is_loader(u) for u in self._loop_sources(loop)):
                continue
            flow = flow or view(module)
            self._prove_call(flow, call, loop, wrapped)

    def _prove_call(
        self, flow: DefUse, call: cst.Call, loop: cst.For | cst.While, wrapped: set[str]
    ) -> None:
        """One model call: its inputs first (split where unproved, else DP047); where the
        batch it gets is this rank's part, the targets compared with its output and the
        state sized by the batch follow it."""
        per_rank = False
        states: list[Origin] = []

        def stop(other: cst.Call) -> bool:  # a model's output: a source, not walked through
            return self.code(other.func) in wrapped

        for value in (a.value for a in call.args):
            found = origins(flow, value, stop)
            # selected by an index each rank takes its own of (`for i in
            # ddp_rank_batches(range(...))`: `X[i:i + n]`): this rank's batch
            dealt = any(o.selects and self._on_split(flow, o) for o in found)
            for origin in found:
                verdict = self._classify(flow, origin, wrapped)
                if dealt and verdict == "batch":
                    verdict = "sharded"
                if verdict == "state":
                    states.append(origin)
                elif verdict == "sharded":
                    per_rank = True
                elif verdict == "batch":
                    if not self._split_on_path(flow, origin, loop):
                        self.warn(
                            call,
                            "DP047",
                            f"{self.code(value)} in {self.code(call)} comes from "
                            f"{code(origin.node)} ({origin.kind}): "
                            f"{origin.flow(self._position)}; every rank gets all of it"
                            + self._per_process_note(),
                        )
                        return
                    per_rank = True
        if not per_rank:
            return
        for value in self._targets(flow, call, loop):
            found = origins(flow, value, stop)
            if any(o.selects and self._on_split(flow, o) for o in found):
                continue  # selected by an index each rank takes its own of
            for origin in found:
                if origin.selects or origin.kind in ("constant", "definition", "global"):
                    continue
                node = origin.node
                if isinstance(node, cst.Call) and (
                    self.code(node.func) in wrapped
                    or name_of(node.func).startswith("ddp_")
                    or self._is_loader(node)
                ):
                    continue
                if isinstance(node, cst.Call) and name_of(node.func) in _FACTORIES | _LIKE:
                    if self._state_factory(origin) and (not origin.cut or origin.entered()):
                        states.append(origin)
                        continue
                    if not origin.cut and not _constant_sizes(node):
                        continue  # sized by the batch it meets (`torch.ones(x.size(0))`)
                if not self._split_on_path(flow, origin, loop):
                    self.warn(
                        call,
                        "DP047",
                        f"the target {self.code(value)} compared with {self.code(call)}'s "
                        f"output comes from {code(node)} ({origin.kind}): "
                        f"{origin.flow(self._position)}; it cannot be split as the batch is",
                    )
                    return
        for origin in states:
            self._per_rank_state(flow, origin, call)

    def _per_process_note(self) -> str:
        if self.state.options.per_process_batch:
            return " (--per-process-batch deals out whole batches of a loop's iterable only)"
        return ""

    def _training_loop(self, call: cst.Call) -> cst.For | cst.While | None:
        """The innermost training loop around `call` in its own function; None for a
        call under `torch.no_grad()` (an evaluation: left whole, as the loops' rules do)."""
        for ancestor in self._ancestors_to(call, None):
            if isinstance(ancestor, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                return None
            if isinstance(ancestor, cst.With) and any(
                self.matches(_called(item.item), NO_GRAD) for item in ancestor.items
            ):
                return None
            if isinstance(ancestor, (cst.For, cst.While)) and is_training_loop(
                ancestor, self.qualified_names
            ):
                return ancestor
        return None

    def _loop_sources(self, loop: cst.For | cst.While) -> list[cst.BaseExpression]:
        if not isinstance(loop, cst.For):
            return []
        return [u for s in iterated(loop.iter) for u in self._unwrapped(s, 0)]

    def _targets(
        self, flow: DefUse, call: cst.Call, loop: cst.For | cst.While
    ) -> list[cst.BaseExpression]:
        """What the model's output is compared with: the other operands of a call,
        operation or comparison given the output (`mse_loss(model(x), y)`,
        `criterion(out.view(-1, n), t)`, `(model(x) - y)`)."""
        outputs: set[str] = set()
        statement = flow.statement_of(call)
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Assign) and small.value is call:
                    for target in small.targets:
                        outputs |= target_names(target.target)

        def given(operand: cst.BaseExpression) -> bool:
            """The operand is the output: the call or an output name, through methods,
            attributes and items (`out.view(-1, n)`, `model(x).squeeze()`, `out[0]`)."""
            while True:
                if operand is call:
                    return True
                if isinstance(operand, cst.Name):
                    return operand.value in outputs
                if isinstance(operand, cst.Call) and isinstance(operand.func, cst.Attribute):
                    operand = operand.func.value
                elif isinstance(operand, (cst.Attribute, cst.Subscript)):
                    operand = operand.value
                elif isinstance(operand, cst.UnaryOperation):
                    operand = operand.expression
                else:
                    return False

        found: list[cst.BaseExpression] = []
        for other in walk(loop.body):
            operands: list[cst.BaseExpression]
            if isinstance(other, cst.Call) and other is not call:
                operands = [a.value for a in other.args if a.keyword is None and not a.star]
                if (
                    len(operands) != 2
                    or self.code(other.func) in self.state.wrapped
                    or name_of(other.func) in _NOT_COMPARING
                    or any(
                        n.startswith("torch.autograd.") for n in self.qualified_names(other.func)
                    )
                ):
                    continue  # a loss takes (output, target); not a print, a gradient
            elif isinstance(other, cst.BinaryOperation):
                operands = [other.left, other.right]
            elif isinstance(other, cst.Comparison):
                operands = [other.left, *(c.comparator for c in other.comparisons)]
            else:
                continue
            if len(operands) < 2:
                continue
            if any(given(o) for o in operands):
                found += [
                    o
                    for o in operands
                    if not given(o)
                    and not any(
                        isinstance(n, cst.Call) and self.code(n.func) in self.state.wrapped
                        for n in walk(o)
                    )
                ]
        return found

    def _classify(self, flow: DefUse, origin: Origin, wrapped: set[str]) -> str:
        """ok (same on every rank, already this rank's, or sharded), state (built by the
        program, sized along the split dim), batch (data nobody split yet)."""
        if origin.selects:
            if origin.selection and origin.kind == "call" and self._draws(origin.node):
                self._share_draw(flow, origin)
            return "ok"
        if origin.kind in ("constant", "definition", "global", "attribute"):
            return "ok"
        if self._on_split(flow, origin):
            return "sharded"
        if self._state_factory(origin) and (not origin.cut or origin.entered()):
            return "state"  # built for the batch (`model.init_hidden(bsz)`), not cut from data
        if not origin.cut:
            # the same value at every step, not a batch cut from data: every rank computes
            # all of it, and the averaged update is DataParallel's (noise drawn in the loop
            # is the randomness rules' question)
            return "ok"
        node = origin.node
        if origin.kind == "call" and isinstance(node, cst.Call):
            spelled = self.code(node.func)
            if spelled in wrapped:
                return "ok"  # the model's output: this rank's already
            if name_of(node.func).startswith("ddp_") or self._is_loader(node):
                return "sharded"

            if name_of(node.func) in _SCALARS:
                return "ok"
        return "batch"

    def _state_factory(self, origin: Origin) -> bool:
        return isinstance(origin.node, cst.Call) and self._sized_along_dim(origin.node) is not None

    def _draws(self, call: cst.CSTNode) -> bool:
        if not isinstance(call, cst.Call):
            return False
        return any(
            n.startswith(("numpy.random.", "random.")) or n in _TORCH_DRAWS
            for n in self.qualified_names(call.func)
        )

    def _share_draw(self, flow: DefUse, origin: Origin) -> None:
        """A random draw that selects the batch (`perm = np.random.permutation(n)`,
        `idx = perm[i:i + bs]`): each rank would draw its own and the parts it keeps would
        overlap; drawn inside `with ddp_same_random():` every rank cuts its part of rank 0's
        draw (templates/helpers/same_random.py.j2), as DataParallel cut one draw."""
        statement = flow.statement_of(origin.node)
        if statement in self._same_random or SAME_RANDOM in self.code(statement):
            return
        if any(
            isinstance(a, cst.With) and SAME_RANDOM in self.code(a.items[0])
            for a in flow.ancestors(statement)
        ):
            return
        self._same_random.add(statement)
        self.state.helpers.update({"same_random", "rank0_value"})
        self.record(
            statement,
            f"{code(origin.node)} selects training batches: drawn alike on every rank "
            "(ddp_same_random), so the ranks' parts of each batch do not overlap",
        )

    def _sized_along_dim(self, call: cst.Call) -> cst.BaseExpression | None:
        """`torch.zeros(1, bsz, n)` with the split dim 1: the size along it (`bsz`), for a
        tensor factory of a library (not of this module)."""
        if name_of(call.func) not in _FACTORIES or not isinstance(call.func, cst.Attribute):
            return None
        sizes = [a.value for a in call.args if a.keyword is None and not a.star]
        if len(sizes) == 1 and isinstance(sizes[0], (cst.Tuple, cst.List)):
            sizes = [e.value for e in sizes[0].elements]
        if self._dim is None or self._dim >= len(sizes):
            return None
        size = sizes[self._dim]
        return size if isinstance(size, cst.Name) else None

    def _per_rank_state(self, flow: DefUse, origin: Origin, model_call: cst.Call) -> None:
        """State sized by the batch (`model.init_hidden(bsz)` -> `torch.zeros(1, bsz, h)`)
        going into a model whose batch is split: the size takes this rank's part,
        `ddp_per_rank_batch(B)`, where the loop's code gives it (the argument of the call
        the flow came through, so a helper that also builds evaluation state is not
        changed), else at the factory."""
        factory = origin.node
        assert isinstance(factory, cst.Call)
        size = self._sized_along_dim(factory)
        if size is None:
            return
        expr: cst.BaseExpression = size
        for entered in reversed(origin.entered()):
            if not isinstance(expr, cst.Name):
                break
            param = [
                d.target
                for d in flow.definitions(expr)
                if d.kind == "param" and isinstance(d.target, cst.Param)
            ]
            if not param:
                break
            argument = None
            for callee in flow.callees(entered):
                if param[0] in callee.params:
                    argument = _argument(entered, callee, param[0])
            if argument is None:
                break
            expr = argument
        if expr in self._swap or PER_RANK in self.code(expr):
            return
        self._swap[expr] = call_named(PER_RANK, cst.Arg(expr.deep_clone()))
        self.state.helpers.add("per_rank_batch")
        self.record(
            expr,
            f"{self.code(expr)} sizes state that goes into {self.code(model_call.func)}() with "
            f"this rank's part of the batch: {PER_RANK}({self.code(expr)}) along dim "
            f"{self._dim} ({origin.flow(self._position)})",
        )

    def _split_on_path(self, flow: DefUse, origin: Origin, loop: cst.For | cst.While) -> bool:
        """The batch's path goes through a loader (the data pass shards it) or a split
        (planned here or written before), or one is planned now: where the batch enters
        the loop (after the statement binding it, or at the top of the loop whose target
        it is), at its source (along a dim other than the one the loop steps along), or
        at the call itself, as DataParallel's scatter did."""
        if self._on_split(flow, origin):
            return True
        if self.state.options.per_process_batch:
            return False  # whole batches in turn: only loops over batches are dealt out
        if origin.kind != "call":
            return False  # a parameter, an import...: what it holds is not this module's
        if self._split_source_of(flow, origin, loop):
            return True
        for node in (step.node for step in origin.path):  # where the batch enters the loop
            if not isinstance(node, cst.Name) or not self._inside(node, loop):
                continue
            small = _binding(flow, node)
            if isinstance(small, cst.Assign):
                if self._split_after_binding(flow, small, origin):
                    return True
                break
            if isinstance(small, cst.For) and (small is loop or self._inside(small, loop)):
                if self._split_loop_target(small, origin):
                    return True
                break
        return self._split_at_call(flow, origin)

    def _split_after_binding(self, flow: DefUse, assign: cst.Assign, origin: Origin) -> bool:
        """`xb, yb = X[i:i + n], Y[i:i + n]` in the loop: split right after it (inputs and
        targets bound together are split together)."""
        statement = flow.statement_of(assign)
        if len(assign.targets) != 1 or not isinstance(statement, cst.SimpleStatementLine):
            return False
        target = assign.targets[0].target
        if not _plain_target(target) or len(statement.body) != 1:
            return False
        if statement not in self._split_after:
            self._split_after[statement] = [self._split_statement(target)]
            self.state.helpers.add("shard_batch")
            self.record(
                statement,
                f"{self.code(target)} (a batch reaching the model) split {self._along()}: "
                f"{self._each()} ({origin.flow(self._position)})",
            )
        return True

    def _split_loop_target(self, loop: cst.For, origin: Origin) -> bool:
        """`for real in batches:` in (or as) the training loop: split at the top of it."""
        batch = self._batch_target(loop)
        if (
            batch is None
            or not _plain_target(batch)
            or not isinstance(loop.body, cst.IndentedBlock)
        ):
            return False
        if loop not in self._split_top:
            self._split_top[loop] = [self._split_statement(batch)]
            self.state.helpers.add("shard_batch")
            self.record(
                loop,
                f"every {self.code(batch)} of {self.code(self._batch_source(loop.iter))} split "
                f"{self._along()}: {self._each()} ({origin.flow(self._position)})",
            )
        return True

    def _on_split(self, flow: DefUse, origin: Origin) -> bool:
        """The path goes through a loader or a split (planned here or written before)."""
        for node in (step.node for step in origin.path):
            statement = flow.statement_of(node)
            if statement in self._split_after or node in self._swap:
                return True
            for ancestor in flow.ancestors(node):
                if (
                    isinstance(ancestor, cst.For)
                    and (node is ancestor.target or self._inside(node, ancestor.target))
                    and (
                        ancestor in self._split_top
                        or any(
                            k is ancestor.iter or self._inside(k, ancestor.iter) for k in self._swap
                        )
                    )
                ):
                    return True
            if isinstance(node, (cst.Name, cst.Attribute, cst.Call)) and self._is_loader(node):
                return True
            if isinstance(node, cst.Call) and name_of(node.func) in (SHARD, ROUNDS):
                return True
        return False

    def _split_at_call(self, flow: DefUse, origin: Origin) -> bool:
        """No statement of the loop binds the batch (`model(xb[j:j + 4])`, a batch bound
        outside the loop): split where it meets the model (or, for a target, the model's
        output), as DataParallel's scatter did at that call. A method chain on a name
        (`targets.reshape(-1)`) is split at the name, before it is reshaped."""
        sink = origin.path[-1].node
        if not isinstance(sink, cst.BaseExpression):
            return False
        root = sink
        while isinstance(root, cst.Call) and isinstance(root.func, cst.Attribute):
            root = root.func.value
        if isinstance(root, cst.Name):
            sink = root
        if sink not in self._swap:
            self._swap[sink] = self._shard_call(sink.deep_clone())
            self.state.helpers.add("shard_batch")
            self.record(
                sink,
                f"{self.code(sink)} split where it meets the model, {self._along()}: "
                f"{self._each()} ({origin.flow(self._position)})",
            )
        return True

    def _split_source_of(self, flow: DefUse, origin: Origin, loop: cst.For | cst.While) -> bool:
        """Along a dim other than 0, a source bound outside the loop and only sliced by
        rows on the way from there to the model (`train_data = batchify(data, B)`,
        `source[i:i + n]`): split where it is bound (the last binding before the loop);
        each rank then steps through its columns, as DataParallel's scatter gave each GPU
        its columns of every batch."""
        if not self._dim:
            return False
        path = origin.path
        scopes: list[cst.CSTNode] = []  # the loop's scope and those around it
        scope: cst.CSTNode | None = flow.scope_of(loop)
        while scope is not None:
            scopes.append(scope)
            scope = flow.outer(scope)  # type: ignore[arg-type]
        last = None
        for index, step in enumerate(path):
            if isinstance(step.node, cst.Name) and not self._inside(step.node, loop):
                small = _binding(flow, step.node)
                if (
                    isinstance(small, cst.Assign)
                    and not self._inside(small, loop)
                    and flow.scope_of(small) in scopes  # not inside a helper it calls
                ):
                    last = (index, small)
        if last is None:
            return False
        index, binding = last
        if len(binding.targets) != 1 or not isinstance(binding.targets[0].target, cst.Name):
            return False
        for step in path[index:]:
            parent = flow.parent(step.node)
            if isinstance(parent, cst.Subscript) and parent.value is step.node:
                if len(parent.slice) != 1:
                    return False  # a slice along more than the first dim
            if (
                isinstance(parent, cst.Attribute)
                and parent.value is step.node
                and parent.attr.value in _ACROSS
            ):
                return False
        if binding.value not in self._swap:
            self._swap[binding.value] = self._shard_call(binding.value.deep_clone())
            self.state.helpers.add("shard_batch")
            self.record(
                binding,
                f"{self.code(binding.targets[0].target)} split {self._along()} where it is "
                f"bound: the loop slices rows of it, {self._each()} "
                f"({origin.flow(self._position)})",
            )
        return True

    # == edits ==========================================================================
    def _along(self) -> str:
        where = (
            ""
            if self._wraps_here
            else " (DataParallel's, which wraps in another module)"
            if self._known
            else " (assumed: no DataParallel wrap seen)"
        )
        return f"along dim {self._dim}{where}"

    def _each(self) -> str:
        return "each rank takes its 1/WORLD_SIZE contiguous part of every batch"

    def _shard_call(self, value: cst.BaseExpression) -> cst.Call:
        args = [cst.Arg(value)]
        if self._dim:
            args.append(
                cst.Arg(
                    cst.Integer(str(self._dim)),
                    keyword=cst.Name("dim"),
                    equal=cst.AssignEqual(
                        whitespace_before=cst.SimpleWhitespace(""),
                        whitespace_after=cst.SimpleWhitespace(""),
                    ),
                )
            )
        return call_named(SHARD, *args)

    def _split_statement(self, target: cst.BaseExpression) -> cst.SimpleStatementLine:
        if isinstance(target, cst.Tuple):
            target = target.with_changes(lpar=[], rpar=[])
        text = self.code(target).strip()
        value = f"({text})" if isinstance(target, cst.Tuple) else text
        shard = self.code(self._shard_call(cst.parse_expression(value)))
        statement = cst.parse_statement(f"{text} = {shard}\n")
        assert isinstance(statement, cst.SimpleStatementLine)
        return statement

    def _rounds(self, loop: cst.For, iterable: str) -> None:
        source = self._batch_source(loop.iter)
        self._swap[source] = call_named(ROUNDS, cst.Arg(source.deep_clone()))
        self.state.helpers.add("rank_batches")
        self.record(
            loop,
            f"batches of {iterable}: each rank takes whole batches in turn "
            "(--per-process-batch: the global batch is WORLD_SIZE of them)",
        )

    def _warn(self, loop: cst.For | cst.While, iterable: str, why: str) -> None:
        self._warned.add(loop)
        self.warn(loop, "DP037", f"{iterable} ({why}); every rank trains on every batch")

    # == rewriting ======================================================================
    def on_leave(  # type: ignore[override]  # any node may become a FlattenSentinel
        self, original_node: cst.CSTNode, updated_node: cst.CSTNode
    ) -> cst.CSTNode | cst.RemovalSentinel | cst.FlattenSentinel[cst.CSTNode]:
        replacement = self._swap.get(original_node)
        if replacement is not None and isinstance(updated_node, cst.BaseExpression):
            return replacement.with_changes(lpar=updated_node.lpar, rpar=updated_node.rpar)
        top = self._split_top.get(original_node)  # type: ignore[call-overload]
        if (
            top
            and isinstance(updated_node, cst.For)
            and isinstance(updated_node.body, cst.IndentedBlock)
        ):
            body = updated_node.body
            return updated_node.with_changes(body=body.with_changes(body=[*top, *body.body]))
        after = self._split_after.get(original_node)
        if after and isinstance(updated_node, cst.SimpleStatementLine):
            return cst.FlattenSentinel([updated_node, *after])
        if original_node in self._same_random and isinstance(
            updated_node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)
        ):
            return cst.With(
                items=[cst.WithItem(cst.Call(func=cst.Name(SAME_RANDOM)))],
                body=cst.IndentedBlock(body=[updated_node.with_changes(leading_lines=[])]),
                leading_lines=updated_node.leading_lines,
            )
        return super().on_leave(original_node, updated_node)


def _called(expr: cst.BaseExpression) -> cst.BaseExpression:
    return expr.func if isinstance(expr, cst.Call) else expr


def _constant_sizes(call: cst.Call) -> bool:
    """`torch.randn(32, 4)`: sized by literals (data, not sized by what it meets)."""
    sizes = [a.value for a in call.args if a.keyword is None]
    if len(sizes) == 1 and isinstance(sizes[0], (cst.Tuple, cst.List)):
        sizes = [e.value for e in sizes[0].elements]
    return bool(sizes) and all(isinstance(v, cst.Integer) for v in sizes)


def _binding(flow: DefUse, name: cst.Name) -> cst.CSTNode | None:
    """The Assign or For whose target `name` is part of (None for a use)."""
    for ancestor in flow.ancestors(name):
        if isinstance(ancestor, cst.AssignTarget):
            parent = flow.parent(ancestor)
            return parent if isinstance(parent, cst.Assign) else None
        if isinstance(ancestor, cst.For):
            return ancestor if ancestor.target is name or name in walk(ancestor.target) else None
        if not isinstance(ancestor, (cst.Tuple, cst.List, cst.Element, cst.StarredElement)):
            return None
    return None


def _plain_target(target: cst.BaseExpression) -> bool:
    if isinstance(target, cst.Name):
        return True
    if isinstance(target, (cst.Tuple, cst.List)):
        return bool(target.elements) and all(
            not isinstance(e, cst.StarredElement) and _plain_target(e.value)
            for e in target.elements
        )
    return False


def _slices_with(node: cst.Subscript, counters: set[str]) -> bool:
    if not node.slice or not isinstance(node.slice[0].slice, cst.Slice):
        return False
    first = node.slice[0].slice
    bounds = [b for b in (first.lower, first.upper) if b is not None]
    return any(v.value in counters for b in bounds for v in variables_under(b))


def _values(
    producers: list[tuple[cst.SimpleStatementLine, cst.Assign]], produced: set[int]
) -> list[cst.BaseExpression]:
    return [assign.value for _, assign in producers if id(assign.value) in produced]
