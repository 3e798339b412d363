"""Means over rows, and sums over counts, the data may decide (DP137, DP136).

DataParallel computed a loss once, on the gathered outputs: a mean over all of the batch's
rows, a sum over the whole batch's count. Under DDP each rank averages (or divides) over
its own part and DDP averages the ranks equally: the same only where every rank's count is
its share of samples. Two classes of validation round 2 (stop 49) were silent:

* DP137: a mean cross entropy (CrossEntropyLoss / NLLLoss built in this module with a mean
  reduction, F.cross_entropy / F.nll_loss) whose value reaches a `.backward()` of the
  module, and whose target's rows are not proved the batch's samples (flow.origins over the
  def-use view). Said where the view shows why: a function of the module on the target's
  data path is handed a batch a loop takes (an element of a `for` loop's iterable or of
  `next()`): `text, length = encode(texts)`, one row per character of each label; or the
  target is a buffer (`text = torch.LongTensor(opt.batchSize * 5)`, a library call every
  data path goes through) handed whole to a call off that path that is also handed a
  batch's values, which may fill it where the view does not follow (`utils.loadData(text,
  t)`: Canjie-Luo/MORAN_v2@410596f main.py:109, 222), and no batch a loop takes reaches it
  (a loop over `range()` or a literal is a counter, not a batch). A target handed in (a
  parameter no call binds, another module's value) is not judged; nor one reached by
  batches a loop does not take (sliced by hand, a `get_batch(data, i)` helper): the rows of
  a batch cut by rows keep their count per sample, and the view has no fact of rows for
  such a helper.
* DP136: a division `S / C` whose value reaches a `.backward()` of the module, `S` a value
  computed by a call, `C` a parameter of the enclosing function that no call of the module
  binds (a count handed in: patelrajnath/pytorch-dl@008c0e9's `SimpleLossCompute.__call__(x,
  y, norm)`, `norm = batch.ntokens`). What the count is was not followed; DP136 says what
  differs if the data decides it. A summed loss built in such a module keeps DP004, whose
  text then names the division: the sum divided by a count is a mean, not multiplied.
"""

from __future__ import annotations

import dataclasses

import libcst as cst

from dp2ddp.flow import origins, view
from dp2ddp.flow.origins import Origin
from dp2ddp.transforms._support.base import MigrationTransform
from dp2ddp.transforms._support.nodes import enclosing_function, walk
from dp2ddp.transforms.hazards.loss_bindings import loss_key
from dp2ddp.transforms.hazards.losses import LossChecks

#: Origin kinds that say nothing is known of a value (handed in, another module's).
_UNKNOWN = frozenset({"parameter", "unknown", "import", "attribute", "instance"})
#: The mean cross entropies: classes (by their last name under torch.nn) and functions.
_CLASSES = frozenset({"CrossEntropyLoss", "NLLLoss", "NLLLoss2d"})
_FUNCTIONS = frozenset({"torch.nn.functional.cross_entropy", "torch.nn.functional.nll_loss"})
_GATE = ("CrossEntropyLoss", "NLLLoss", "cross_entropy", "nll_loss")
#: Keywords that make a loss something other than a plain mean (DP004, DP043 are theirs).
#: Calls that read a buffer, not fill it (`Variable(text)`, a loss of it).
_NOT_FILLING = frozenset({"torch.autograd.Variable", "builtins.len", "builtins.print"})
_NOT_PLAIN = frozenset({"size_average", "reduce", "reduction"})


def _mean(call: cst.Call) -> bool:
    """No reduction keyword but a literal 'mean' (the default is a mean; positional
    legacy flags are rare and left)."""
    for arg in call.args:
        if arg.star:
            return False
        if arg.keyword is not None and arg.keyword.value in _NOT_PLAIN:
            value = arg.value
            if not (isinstance(value, cst.SimpleString) and value.evaluated_value == "mean"):
                return False
    return True


def _target(call: cst.Call) -> cst.BaseExpression | None:
    """The call's target: `target=`, else its second positional argument."""
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "target":
            return arg.value
    return positional[1] if len(positional) > 1 else None


class DataRows:
    """DP137 and DP136 for FlagHazards (through MeanLosses, which sees every call)."""

    def __init__(self, transform: MigrationTransform, losses: LossChecks) -> None:
        self.t = transform
        self.losses = losses
        self._module: cst.Module | None = None
        #: names of the mean cross entropy objects built in this module
        self._built: set[str] = set()
        #: the nodes a value reaching a `.backward()` of the module goes through, once
        self._reached: set[cst.CSTNode] = set()
        #: parameters no call binds whose value reaches a `.backward()` as data
        self._handed: set[cst.Param] = set()
        #: DP136's divisions: (the division, its count) in this module
        self.divisions: list[tuple[cst.BinaryOperation, cst.Name]] = []
        #: the module's warnings looked at for DP004 so far
        self._seen = 0

    def enter_module(self, node: cst.Module) -> None:
        self._module, self._built, self.divisions = None, set(), []
        self._seen = len(self.t.state.warnings)
        text = self.t.state.text
        if text and "backward" not in text:
            return
        self._module = node
        flow = view(node)
        self._reached, self._handed = set(), set()
        for call in flow.calls:
            func = call.func
            if isinstance(func, cst.Attribute) and func.attr.value == "backward":
                for origin in origins(flow, func.value):
                    if not origin.selects:
                        self._reached.update(s.node for s in origin.path)
                        if origin.kind == "parameter" and isinstance(origin.node, cst.Param):
                            self._handed.add(origin.node)
        if not text or any(name in text for name in _GATE):
            for call in flow.calls:
                if self._kind(call) == "class" and _mean(call):
                    parent = self.t.parent(call)
                    if isinstance(parent, cst.Assign) and len(parent.targets) == 1:
                        key = loss_key(parent.targets[0].target)
                        if key:
                            self._built.add(key)
        if not text or "/" in text:
            self.divisions = self._divisions()

    def _kind(self, call: cst.Call) -> str:
        names = self.t.qualified_names(call.func)
        if names & _FUNCTIONS:
            return "function"
        if any(n.startswith("torch.nn.") and n.rsplit(".", 1)[-1] in _CLASSES for n in names):
            return "class"
        return ""

    # == DP137 ==========================================================================
    def check_call(self, node: cst.Call) -> None:
        if self._module is None:
            return
        self._amend_sum()
        if not self._built and not self.t.state.text_count("cross_entropy"):
            if not self.t.state.text_count("nll_loss"):
                return
        kind = self._kind(node)
        is_mean = (kind == "function" and _mean(node)) or (
            not kind and loss_key(node.func) in self._built
        )
        if not is_mean or node not in self._reached or not self.losses.feeds_backward(node):
            return
        target = _target(node)
        if target is None:
            return
        why = self._rows_not_proved(node, target)
        if why:
            self.t.warn(node, "DP137", f"{self.t.code(node)}: {why}")

    def _rows_not_proved(self, loss: cst.Call, target: cst.BaseExpression) -> str:
        """Why the target's rows are not proved the batch's samples ("" when they are,
        or when nothing is known of it)."""
        assert self._module is not None
        flow = view(self._module)
        found = origins(flow, target)
        if any(o.kind in _UNKNOWN and self._taken(o) is None for o in found):
            return ""  # a source behind a batch a loop takes (its loader's dataset) is known
        batched = any(self._taken(o) is not None for o in found if not _counted(o))
        entered: list[cst.Call] = []
        for origin in found:
            if not origin.selects:
                entered += [c for c in origin.entered() if c not in entered]
        for call in entered:  # a function of the module the batch is handed to
            batch = self._batch_argument(call)
            if batch:
                where = self.t.input_position(call)
                return (
                    f"its target {self.t.code(target)} is made by {self.t.code(call)} (line "
                    f"{where[0]}) from the batch ({batch}): how many rows it gives is not "
                    "proved one per sample; each rank averages over its own rows' count, "
                    "DataParallel over the whole batch's"
                )
        if batched or not found:
            return ""
        buffer = self._buffer(loss, found)
        if buffer is None:
            return ""
        made, filler = buffer
        return (
            f"its target {self.t.code(target)} is the buffer {made}, handed to "
            f"{self.t.code(filler)} (line {self.t.input_position(filler)[0]}), which fills it "
            "where the def-use view does not follow, and no batch a loop takes is proved to "
            "flow into it: its rows are not proved the batch's samples; where their count "
            "depends on the data each rank averages over its own, DataParallel over the "
            "whole batch's"
        )

    def _buffer(self, loss: cst.Call, found: list[Origin]) -> tuple[str, cst.Call] | None:
        """(`torch.LongTensor(n)` (line), the call it is handed to) where the target is a
        buffer: every data path goes through one assignment `name = <a library call>`,
        and `name` is passed whole to another call of the module (which may fill it)."""
        assert self._module is not None
        paths = [o.path for o in found if not o.selects and o.kind != "constant"]
        paths = paths or [o.path for o in found]
        common: set[int] | None = None
        for path in paths:
            ids = {id(s.node) for s in path}
            common = ids if common is None else common & ids
        on_path = {id(s.node) for path in paths for s in path}
        for step in paths[0]:
            parent = self.t.parent(step.node)
            if not (id(step.node) in (common or set()) and isinstance(parent, cst.AssignTarget)):
                continue
            statement = self.t.parent(parent)
            if not (
                isinstance(statement, cst.Assign)
                and isinstance(step.node, cst.Name)
                and isinstance(statement.value, cst.Call)
            ):
                return None
            flow, made = view(self._module), statement.value
            # the buffer itself, as the def-use view binds it: not another scope's name so
            # spelled (round 14 v2-H: a loader loop's `y` in another function was taken for
            # the split `y = ddp_shard_batch(y, rows=True)` of a second run)
            fillers = [
                call
                for call in flow.calls
                if call is not made
                and call is not loss
                and any(
                    isinstance(a.value, cst.Name)
                    and any(d.value is made for d in flow.definitions(a.value))
                    for a in call.args
                    if a.keyword is None and not a.star
                )
                and not (self.t.qualified_names(call.func) & _NOT_FILLING)
                and id(call) not in on_path  # it reads the buffer: the target is its value
                and self._fed(call)  # it is handed a batch's values
            ]
            if not fillers:
                return None
            here = enclosing_function(loss, self.t)
            fillers.sort(
                key=lambda c: (enclosing_function(c, self.t) is not here, self.t.input_position(c))
            )
            where = self.t.input_position(statement)[0]
            return f"{self.t.code(statement.value)} (line {where})", fillers[0]
        return None

    def _batch_argument(self, call: cst.Call, data: bool = True) -> str:
        """How a batch a loop takes reaches an argument of `call` ("" when none does); with
        `data` False also through what shapes or selects it (`encode(texts)` of a method
        of another module's object, whose argument the walk does not enter)."""
        assert self._module is not None
        for arg in call.args:
            for origin in origins(view(self._module), arg.value):
                skip = (data and origin.selects) or _counted(origin)
                taken = None if skip else self._taken(origin)
                if taken is not None:
                    return origin.path[taken].what
        return ""

    def _fed(self, call: cst.Call) -> bool:
        """A batch a loop takes reaches an argument of `call`, or an argument of a function
        of the module one of its arguments comes from (`t, l = converter.encode(texts)`)."""
        assert self._module is not None
        if self._batch_argument(call, data=False):
            return True
        for arg in call.args:
            for origin in origins(view(self._module), arg.value):
                if any(self._batch_argument(c, data=False) for c in origin.entered()):
                    return True
        return False

    def _taken(self, origin: Origin) -> int | None:
        """The index of the last step where the value became a batch: an element of a
        `for` loop's iterable (not a comprehension's) or of `next()`."""
        found = None
        for index, step in enumerate(origin.path):
            if not step.cut:
                continue
            if step.what.endswith("next()") or self._for_target(step.node):
                found = index
        return found

    def _for_target(self, node: cst.CSTNode) -> bool:
        parent: cst.CSTNode | None = node
        for _ in range(8):
            child, parent = parent, self.t.parent(parent) if parent is not None else None
            if isinstance(parent, cst.For):
                return parent.target is child
            if not isinstance(parent, (cst.Tuple, cst.List, cst.Element, cst.StarredElement)):
                return False
        return False

    # == DP136 ==========================================================================
    def _divisions(self) -> list[tuple[cst.BinaryOperation, cst.Name]]:
        """The divisions `S / C` of a function, `S` holding a call, `C` a parameter no call
        of the module binds whose value reaches a `.backward()` as data."""
        found = []
        for param in self._handed:
            function = self.t.parent(self.t.parent(param) or param)
            if not isinstance(function, cst.FunctionDef):
                continue
            name = param.name.value
            for node in walk(function.body, skip_scopes=True):
                if (
                    isinstance(node, cst.BinaryOperation)
                    and isinstance(node.operator, cst.Divide)
                    and isinstance(node.right, cst.Name)
                    and node.right.value == name
                    and any(isinstance(n, cst.Call) for n in walk(node.left, skip_scopes=True))
                ):
                    found.append((node, node.right))
                    self.t.warn(
                        node,
                        "DP136",
                        f"{_short(self.t.code(node.left))} / {name} divides by {name}, "
                        "handed in by the caller: if the data decides it (tokens not "
                        "padding, positives), each rank divides its part by its own count, "
                        "DataParallel the whole batch by the whole batch's",
                    )
        return sorted(found, key=lambda f: self.t.input_position(f[0]))

    def _amend_sum(self) -> None:
        """DP004 in a module that divides a loss by a count handed in: its text names the
        division (a sum over a count is a mean: not to multiply). Each warning once."""
        warnings = self.t.state.warnings
        if not self.divisions or self._seen >= len(warnings):
            self._seen = len(warnings)
            return
        division, count = self.divisions[0]
        at = self.t.input_position(division)
        note = (
            f"; this module divides a loss by {count.value} (a count handed in, line "
            f"{at[0]}) before backward: if that divides this sum, the loss is a mean over "
            f"{count.value}, not a sum: do not multiply it by WORLD_SIZE (DP136)"
        )
        index = self._seen
        while index < len(warnings):
            report = warnings[index]
            if report.code == "DP004":
                amended = dataclasses.replace(report, message=report.message + note)
                if amended in warnings:  # warned again: told already
                    del warnings[index]
                    continue
                warnings[index] = amended
            index += 1
        self._seen = len(warnings)


def _short(text: str) -> str:
    """An expression on one line, cut to 60 characters."""
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:59] + "…"


def _counted(origin: Origin) -> bool:
    """The value is a loop's counter or a literal it iterates (`for i in range(0, n, 8)`,
    `for phase in ("train",)`), not data a loop takes."""
    return origin.kind == "constant" or any(
        isinstance(step.node, cst.Call)
        and isinstance(step.node.func, cst.Name)
        and step.node.func.value in ("range", "len")
        for step in origin.path
    )
