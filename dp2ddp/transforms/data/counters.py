"""Running counters of a loop, and whether each adds up samples: the root of what an
evaluation loader's figures may be summed over the ranks (evaluation.py)."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import PositionProvider

from dp2ddp.flow import view
from dp2ddp.flow.origins import argument_for
from dp2ddp.transforms._support.ast_nodes import import_table, parse_python
from dp2ddp.transforms._support.bound_values import bound_under_if, bound_value
from dp2ddp.transforms._support.nodes import (
    is_script_guard,
    name_of,
    target_names,
    variables_under,
    walk,
)
from dp2ddp.transforms.analysis.object_returns import keeping_methods
from dp2ddp.transforms.analysis.printing import printing_functions
from dp2ddp.transforms.analysis.training import function_trains
from dp2ddp.transforms.data.flow import MAX_DEPTH
from dp2ddp.transforms.data.imported import LoaderImports
from dp2ddp.transforms.data.mean_lists import mean_over_batch
from dp2ddp.transforms.data.plan import ZERO_TENSOR

#: Conversions that keep a figure's value: `.item()` of a sum is still a sum.
#: numpy's arrays of zeros a loop may sum whole arrays into (_item_sums).
NUMPY_ZEROS = frozenset({"numpy.zeros", "numpy.zeros_like"})
_NUMPY_FULL = frozenset({"numpy.full", "numpy.full_like"})
_CONVERSIONS = frozenset({"item", "detach", "cpu", "float", "double", "long", "to", "numpy"})
#: torch's sums and counts over samples.
_TORCH_SUMS = frozenset({"torch.sum", "torch.count_nonzero", "torch.bincount", "torch.numel"})
#: Calls that fold rows into an array: `x = torch.cat((x, rows))` (_folds_rows).
_CONCATENATIONS = frozenset(
    "torch.cat torch.concat torch.vstack torch.hstack torch.row_stack numpy.concatenate"
    " numpy.vstack numpy.hstack numpy.row_stack numpy.append".split()
)


def _reduction_sum(call: cst.Call) -> bool:
    """`reduction="sum"` among the call's arguments: a loss summed over the samples."""
    return any(
        arg.keyword is not None
        and arg.keyword.value == "reduction"
        and isinstance(arg.value, cst.SimpleString)
        and arg.value.evaluated_value == "sum"
        for arg in call.args
    )


def _zero_fill(call: cst.Call) -> bool:
    """`np.full(shape, 0)` / `np.full_like(a, 0.0)` (a call of _NUMPY_FULL): numpy zeros
    spelled as a fill."""
    fill = [a.value for a in call.args if a.keyword is None][1:2]
    fill += [a.value for a in call.args if a.keyword and a.keyword.value == "fill_value"]
    return bool(fill) and _number(fill[0]) and float(_literal(fill[0])) == 0.0


def _literal(value: cst.BaseExpression) -> str:
    inner = value.expression if isinstance(value, cst.UnaryOperation) else value
    return inner.value if isinstance(inner, (cst.Integer, cst.Float)) else "nan"


def _number(value: cst.BaseExpression) -> bool:
    """A numeric literal, negative or not."""
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
        value = value.expression
    return isinstance(value, (cst.Integer, cst.Float))


def _summed_item(node: cst.CSTNode) -> tuple[str, cst.Subscript, cst.BaseExpression] | None:
    """(`d`, `d[k]`, what is added) where `node` adds to an item of a named container:
    `d[k] += v`, or `d[k] = d.get(k, 0) + v` / `d[k] = d[k] + v`, also as a branch of a
    conditional expression (`d[k] + v if k in d else v`: round 32, facebookresearch/
    BinauralSpeechSynthesis@81d0765's `loss_stats`, rank 0's half with no DP030)."""
    total = node.value if isinstance(node, cst.Assign) else None
    if isinstance(total, cst.IfExp):
        total = next(
            (
                branch
                for branch in (total.body, total.orelse)
                if isinstance(branch, cst.BinaryOperation) and isinstance(branch.operator, cst.Add)
            ),
            None,
        )
    if isinstance(node, cst.AugAssign) and isinstance(node.operator, cst.AddAssign):
        target, value = node.target, node.value
    elif (
        isinstance(node, cst.Assign)
        and len(node.targets) == 1
        and isinstance(total, cst.BinaryOperation)
        and isinstance(total.operator, cst.Add)
    ):
        target, value, left = node.targets[0].target, total.right, total.left
        if not isinstance(target, cst.Subscript):
            return None
        read = (
            left.func.value
            if isinstance(left, cst.Call)
            and isinstance(left.func, cst.Attribute)
            and left.func.attr.value == "get"
            else left
        )
        if not read.deep_equals(target if read is left else target.value):
            return None
    else:
        return None
    if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
        return target.value.value, target, value
    return None


def _empty_dict(value: cst.BaseExpression | None) -> bool:
    """`{}`, `dict()`, `OrderedDict()`, `defaultdict(int)` / `(float)`: a dict a loop fills."""
    if isinstance(value, cst.Dict):
        return not value.elements
    if not isinstance(value, cst.Call):
        return False
    called = name_of(value.func).rpartition(".")[2]
    if called in ("dict", "OrderedDict"):
        return not value.args
    return called == "defaultdict" and [
        a.value.value for a in value.args if isinstance(a.value, cst.Name)
    ] in (["int"], ["float"])


def _items_numbers(loop: cst.For | cst.While, name: str) -> bool:
    """Every item `loop` binds in `name` outside a sum is a number (`if k not in d: d[k] =
    0`): a dict of running sums its batches fill (stop 65 v2-C, facebookresearch/votenet@
    2f6d6d3's `stat_dict`, empty before the loop, printed rank 0's half with no DP030)."""
    for node in walk(loop.body, skip_scopes=True):
        if not isinstance(node, cst.Assign) or _summed_item(node) is not None:
            continue
        for each in node.targets:
            target = each.target
            if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
                if target.value.value == name and not _number(node.value):
                    return False
    return True


class LoopCounters(LoaderImports):
    """A loop's running sums and counts, each proved a sum over samples or not."""

    def _counters(self, loop: cst.For | cst.While) -> list[str]:
        """Running sums and counts of the loop: accumulated in it, bound to a number or a
        zero tensor before it."""
        names: list[str] = []
        for name, _ in self._accumulated(loop):
            if name not in names:
                names.append(name)
        return [n for n in names if self._is_counter(self._initial_value(loop, n))]

    def _step_counters(self, loop: cst.For | cst.While) -> set[str]:
        """Counters only ever increased by a constant (`global_step += 1`), or by a value
        the loop does not change and no batch decides (`j += self.batch_size`, `seen +=
        args.batch_size`: names and attributes bound outside the loop, no call): every rank
        counts the same steps, as many as the original's (round 31, Seanny123/da-rnn@1db1e79's
        `j += self.batch_size` walking its index array was said as a figure, its step
        buffer not)."""
        accumulated = self._accumulated(loop)
        bound = _bound_in(loop) if accumulated else set()
        constant: dict[str, bool] = {}
        for name, value in accumulated:
            steady = isinstance(value, (cst.Integer, cst.Float)) or _invariant(value, bound)
            constant[name] = constant.get(name, True) and steady
        return {name for name, yes in constant.items() if yes}

    def _accumulated(self, loop: cst.For | cst.While) -> list[tuple[str, cst.BaseExpression]]:
        """(name, what is added) for each running sum in the loop body, in both spellings:
        `total += n` and `total = total + n` (or `n + total`). Knowing only the first
        left `length_of_data = length_of_data + batch_size` a per-rank count while the sums
        divided by it were summed over the ranks (real-world: deep-text-recognition-benchmark
        printed norm_ED doubled)."""
        found: list[tuple[str, cst.BaseExpression]] = []
        for node in walk(loop.body, skip_scopes=True):
            if (
                isinstance(node, cst.AugAssign)
                and isinstance(node.operator, cst.AddAssign)
                and isinstance(node.target, cst.Name)
            ):
                found.append((node.target.value, node.value))
            elif (
                isinstance(node, cst.Assign)
                and len(node.targets) == 1
                and isinstance(target := node.targets[0].target, cst.Name)
                and isinstance(node.value, cst.BinaryOperation)
                and isinstance(node.value.operator, cst.Add)
            ):
                left, right = node.value.left, node.value.right
                if isinstance(left, cst.Name) and left.value == target.value:
                    found.append((target.value, right))
                elif isinstance(right, cst.Name) and right.value == target.value:
                    found.append((target.value, left))
        return found

    def _item_sums(self, loop: cst.For | cst.While) -> set[str]:
        """Lists and dicts of numbers, bound before the loop, whose items it sums into
        (`total_losses[i * 2] += loss.item()`, `sums["mse"] += l1.item()`), and numpy
        arrays of zeros it adds whole arrays to (`hist += ...`): running sums
        kept item by item, each holding this rank's batches only, as `total += x` does
        (class v3-A of stop 39: Daniil-Osokin/lightweight-human-pose-estimation.pytorch@d23c284
        printed its per-stage losses so, rank 0's half, without DP030). An item increased by
        a constant at a place written as a literal (`steps[0] += 1`) counts steps, alike on
        every rank."""
        found: set[str] = set()
        for node in walk(loop.body, skip_scopes=True):
            summed = _summed_item(node)
            if summed is None or summed[0] in found:
                continue
            name, target, added = summed
            before = self._bound_before(loop, name)
            if not (self._numbers(before) or _empty_dict(before) and _items_numbers(loop, name)):
                continue
            literal_place = all(
                isinstance(e.slice, cst.Index)
                and isinstance(e.slice.value, (cst.Integer, cst.SimpleString))
                for e in target.slice
            )
            if not (literal_place and isinstance(added, (cst.Integer, cst.Float))):
                found.add(name)
        # an array summed into whole (`hist += fast_hist(pred, label, n)`, hist a numpy
        # zeros): a sum of every item at once (issue 28, XDong18/dla_bdd100k@e93d08b's
        # confusion matrix: its mIoU was rank 0's share, unsaid); a constant added counts
        for name, added in self._accumulated(loop):
            initial = self._initial_value(loop, name)
            if (
                isinstance(initial, cst.Call)
                and (
                    self.matches(initial.func, NUMPY_ZEROS)
                    or (self.matches(initial.func, _NUMPY_FULL) and _zero_fill(initial))
                )
                and not isinstance(added, (cst.Integer, cst.Float))
            ):
                found.add(name)
        return found

    def _numbers(self, value: cst.BaseExpression | None) -> bool:
        """A list, tuple or dict of numbers (`[0, 0] * n`, `[0.0 for _ in ...]`, `{"a": 0.}`)
        or a zero tensor: what a loop sums figures into item by item."""
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Multiply):
            return self._numbers(value.left) or self._numbers(value.right)
        if isinstance(value, (cst.List, cst.Tuple)):
            return bool(value.elements) and all(
                isinstance(e, cst.Element) and _number(e.value) for e in value.elements
            )
        if isinstance(value, cst.Dict):
            return bool(value.elements) and all(
                isinstance(e, cst.DictElement) and _number(e.value) for e in value.elements
            )
        if isinstance(value, cst.ListComp):
            return _number(value.elt)
        if isinstance(value, cst.DictComp):
            return _number(value.value)
        return isinstance(value, cst.Call) and self._is_counter(value)

    def _initial_value(self, loop: cst.For | cst.While, name: str) -> cst.BaseExpression | None:
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
                        return value or bound_under_if(statement, name)
            child, node = node, self.parent(node)
        return None

    def _folds_rows(self, loop: cst.For | cst.While, node: cst.Assign) -> bool:
        """`x = torch.cat((x, rows), 0)` folding into an `x` bound before `loop` and bound
        in it by such folds only: rows kept across the steps (evaluation._recurrences). Not
        `out = cat((content, out))` on the model's `out` of this step (a grid of images)."""
        target = node.targets[0].target if len(node.targets) == 1 else None
        name = target.value if isinstance(target, cst.Name) else ""
        if not name or not self._concatenates(node.value, name):
            return False
        if self._bound_before(loop, name) is None:
            return False
        for inner in walk(loop.body, skip_scopes=True):
            if isinstance(inner, cst.Assign):
                targets = [t.target for t in inner.targets]
            elif isinstance(inner, (cst.AugAssign, cst.AnnAssign, cst.For)):
                targets = [inner.target]
            else:
                continue
            if any(name in target_names(t) for t in targets):
                value = inner.value if isinstance(inner, cst.Assign) else None
                if not (len(targets) == 1 and self._concatenates(value, name)):
                    return False
        return True

    def _concatenates(self, value: cst.BaseExpression | None, name: str) -> bool:
        """`value` concatenates arrays, `name` among them."""
        if not isinstance(value, cst.Call):
            return False
        called = self.qualified_names(value.func)
        reads = {n.value for n in variables_under(value)}
        return bool(called) and called <= _CONCATENATIONS and name in reads

    def _bound_before(self, loop: cst.For | cst.While, name: str) -> cst.BaseExpression | None:
        """What `name` holds when `loop` starts: its value before it, else the module's,
        else what every call of its function passes for it."""
        found = self._initial_value(loop, name) or self._module_value(loop, name)
        return found or self._passed_value(loop, name)

    def _passed_value(self, loop: cst.For | cst.While, name: str) -> cst.Call | None:
        """The construction every call of this module to the function holding `loop`
        passes for its parameter `name` (as written, or through a name the caller binds to
        one): round 30, zacjiang/GMA@2f1fd29's `train(model, loader, opt, logger)` with
        `logger = Logger(...)` built by `main()`, pushed the batches' figures and printed
        their running means, rank 0's half, no DP030 (written in `main()`, DP030)."""
        flow = view(self._module_node)
        function = flow.function_around(loop)
        if function is None or not isinstance(function.node, cst.FunctionDef):
            return None
        params = function.node.params
        param = next(
            (p for p in (*params.params, *params.kwonly_params) if p.name.value == name), None
        )
        sites = flow.call_sites(function) if param is not None else []
        built: list[cst.Call] = []
        for site in sites:
            value = argument_for(site, function, param) if param is not None else None
            if isinstance(value, cst.Name):
                bound = [d.value for d in flow.reaching(value) if d.kind == "assign"]
                value = bound[0] if len(bound) == 1 else None
            if not isinstance(value, cst.Call) or not name_of(value.func)[:1].isupper():
                return None
            built.append(value)
        return built[0] if built else None

    def _module_value(self, loop: cst.For | cst.While, name: str) -> cst.BaseExpression | None:
        """The value `name` is bound to at module level, when the function holding `loop`
        does not bind it: a module's meter (`loss_meter = RunningAverageMeter()`) fed in
        `train()`'s loop keeps its figures across the calls (rtqichen/residual-flows)."""
        node = self.parent(loop)
        while node is not None and not isinstance(node, cst.FunctionDef):
            node = self.parent(node)
        if node is None:
            return None  # a loop at module level: _initial_value sees its bindings
        params = node.params
        every = [*params.posonly_params, *params.params, *params.kwonly_params]
        star = [p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
        if name in {p.name.value for p in every + star}:
            return None
        for inner in walk(node.body, skip_scopes=True):
            targets: list[cst.CSTNode] = []
            if isinstance(inner, cst.Assign):
                targets = [t.target for t in inner.targets]
            elif isinstance(inner, (cst.AugAssign, cst.AnnAssign, cst.For)):
                targets = [inner.target]
            elif isinstance(inner, cst.WithItem) and inner.asname is not None:
                targets = [inner.asname.name]
            # what a target binds, not what it reads: `logs[meter.name] = v` binds no
            # `meter` (WS-DAN's module-level meters, named in a log key after the loop)
            if any(name in target_names(t) for t in targets):
                return None
        for statement in reversed(self._module_node.body):
            if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
                if statement.name.value == name:
                    return None
                continue  # its own names, not the module's
            if (
                isinstance(statement, cst.If)
                and is_script_guard(statement.test)
                and isinstance(statement.body, cst.IndentedBlock)
            ):
                # the script's own block binds the module's names before it calls the
                # training function (round 29, AIDL-PROJ-2022/enhanced-srgan@2ae5559: its
                # loss meters, module globals made there, printed rank 0's share unsaid)
                for inner in reversed(statement.body.body):
                    bound, value = bound_value(inner, name)
                    if bound:
                        return value
                if statement.orelse is None:
                    continue
            bound, value = bound_value(statement, name)
            if bound:
                return value
        return None

    def _keeping(self) -> frozenset[str]:
        """ "Class.method" of the program's methods that store what they are given
        (ProgramHints.keepers; in a file migrated alone, this module's own)."""
        if self._keepers is None:
            keepers = self.state.hints.keepers
            if self.state.hints.printing is None:  # no program told: this module's own
                tree = parse_python(self._module_node.code)
                printing = printing_functions(tree, import_table(tree, "", False))
                keepers = keepers | keeping_methods(tree, printing)
            self._keepers = keepers
        return self._keepers

    def _fed_to_no_keeper(self, call: cst.Call, initial: cst.Call) -> bool:
        """`obj.method(...)`, `obj` built by `initial`, runs a method of the program's class
        that backpropagates and stores nothing it is given (a `Model` whose `train_step(x,
        y)` runs the forward, the backward and the step): a model or a trainer, no meter;
        it holds no running figure, whatever it is fed. The class is this module's (its
        method read here), or another module's whose method runs a backward
        (ProgramFacts.backward_summaries). Before stop 43 such an object was taken for a
        meter: DP030 at a print of the model's weights after the loop. A method that hands
        what it is given on (`self.meter.update(v)`) or a library's keeps the rule."""
        assert isinstance(call.func, cst.Attribute)
        owner, method = name_of(initial.func), call.func.attr.value
        if f"{owner}.{method}" in self._keeping():
            return False
        for cls in self._module_node.body:
            if isinstance(cls, cst.ClassDef) and cls.name.value == owner:
                found = [f for f in cls.body.body if isinstance(f, cst.FunctionDef)]
                return any(
                    f.name.value == method
                    and function_trains(f, self.qualified_names)
                    and not self._hands_on(f)
                    for f in found
                )
        return any(
            name.endswith(f".{owner}.{method}") and any(not model for _, _, model in told.sites)
            for name, told in self.state.facts.backward_summaries
        )

    def _hands_on(self, function: cst.FunctionDef) -> bool:
        """The method gives one of its parameters to a method of another object it holds
        (`self.meter.update(loss)`): what it is given may be kept there. The object is one
        `self` holds; a function of a module (`nn.functional.mse_loss(out, y)`) keeps
        nothing (stop 48: a trainer's `step(xb, yb)` computing its loss so was taken for a
        meter, DP030 at a print of its model's weight)."""
        if not function.params.params:
            return False
        own = function.params.params[0].name.value
        params = {p.name.value for p in function.params.params[1:]}
        return any(
            isinstance(n, cst.Call)
            and isinstance(n.func, cst.Attribute)
            and isinstance(n.func.value, cst.Attribute)
            and _root_name(n.func.value) == own
            and any(isinstance(v, cst.Name) and v.value in params for a in n.args for v in walk(a))
            for n in walk(function.body)
        )

    def _kept_objects(self, loop: cst.For | cst.While, objects: set[str]) -> dict[str, str]:
        """Those of `objects` the loop feeds through a method of their class (a class of
        the program) that stores what it is given (ProgramHints.keepers: a progress bar's
        `add(n, values=logs)` summing into `self.sums`, a meter's `update`), each with its
        class's name: the object's own printing methods show running figures
        (edge-connect's Progbar)."""
        keepers = self._keeping()
        kept: dict[str, str] = {}
        for node in walk(loop.body, skip_scopes=True):
            if not (
                isinstance(node, cst.Call)
                and isinstance(node.func, cst.Attribute)
                and isinstance(node.func.value, cst.Name)
                and node.func.value.value in objects
            ):
                continue
            name = node.func.value.value
            initial = self._bound_before(loop, name)
            if isinstance(initial, cst.Call):
                owner = name_of(initial.func)
                if f"{owner}.{node.func.attr.value}" in keepers:
                    kept[name] = owner
        return kept

    def _kept_shown(self, call: cst.Call, kept: dict[str, str]) -> list[cst.BaseExpression]:
        """[`progbar`] of `progbar.add(n, values=logs)` when `progbar` keeps running
        figures (`kept`: _kept_objects) and the method reads its object's data
        (ProgramHints.keepers' "Class.method()"): it shows what was kept. A method reading
        none of it (`meter.append_to(path)` writing "finished") shows none."""
        func = call.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            owner = kept.get(func.value.value)
            if owner is not None and f"{owner}.{func.attr.value}()" in (self._keepers or ()):
                return [func.value]
        return []

    def _is_counter(self, value: cst.BaseExpression | None) -> bool:
        if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
            value = value.expression
        if isinstance(value, (cst.Integer, cst.Float)):
            return True
        return isinstance(value, cst.Call) and self.matches(value.func, ZERO_TENSOR)

    # -- sums over samples ---------------------------------------------------------------
    def _batch_mean(
        self, loop: cst.For, averaged: frozenset[str] = frozenset(), *, whole: bool = False
    ) -> tuple[cst.CSTNode, str] | None:
        """A term of the loop's counters not proved to be a sum over samples, as (where, why).

        Summing a counter over the ranks is right only where it adds up samples: a count
        (`total += y.size(0)`, `n += 1`), a `.sum()`, a figure weighted by the batch's size
        (`loss.item() * x.size(0)`), a loss with `reduction="sum"`. A mean per batch
        (`loss.item()` of a mean-reduced criterion, `.mean()`, an `accuracy(...)` fraction)
        is not: sharded, each global batch becomes one per-rank batch on every rank, each
        adding its own mean, and the summed figure weighs the samples otherwise than the
        original (a raw sum of batch means doubles under two ranks). Prove or say: what is
        not proved a sum keeps the loader whole (DP015) or is said (DP058). `whole`: the
        loader stays whole (DP015), so the summing is what sharding would have done (stop
        59 s2, round 11 v2-E: said as done, it contradicted "its figures are the
        original's")."""
        counters = set(self._counters(loop))
        for name, added in self._accumulated(loop):
            if (
                name in counters
                and name not in averaged
                and not self._per_sample(loop, added)
                and not self._sums_samples(loop, added, 0)
            ):
                return added, (
                    f"`{self.code(added)}` added to {name} is not proved a sum over samples "
                    "(a mean per batch, or not known to be a sum): "
                    + (f"were the loader sharded and {name} " if whole else "")
                    + "summed over the ranks, each rank's share of a batch would count as a "
                    "batch of its own"
                )
        return None

    def _per_sample(self, loop: cst.For, added: cst.BaseExpression) -> bool:
        """`added` is added once per sample: inside a loop nested in `loop` that walks the
        batch's own values (`for pred, gt in zip(preds.tolist(), labels.tolist())`), one
        iteration per sample, so whatever each adds, the counter sums over samples."""
        bound = {n.value for n in variables_under(loop.target)}
        node = self.parent(added)
        while node is not None and node is not loop:
            if (
                isinstance(node, cst.For)
                and not (isinstance(node.iter, cst.Call) and name_of(node.iter.func) == "range")
                and any(
                    isinstance(n, cst.Name)
                    and (n.value in bound or self._bound_in_loop(loop, n)[0])
                    for n in walk(node.iter)
                )
            ):
                return True
            node = self.parent(node)
        return False

    def _sums_samples(self, loop: cst.For, expr: cst.BaseExpression, depth: int) -> bool:
        """`expr`, added to a counter in `loop`, is proved a sum over the batch's samples (or
        a count): followed through `.item()`-like conversions, arithmetic and the names the
        loop body binds before it."""
        if depth > MAX_DEPTH:
            return False
        if isinstance(expr, (cst.Integer, cst.Float)):
            return True
        if self._batch_size(loop, expr, depth):
            return True
        if isinstance(expr, cst.BinaryOperation):
            left, right = expr.left, expr.right
            if isinstance(expr.operator, (cst.Add, cst.Subtract)):
                return self._sums_samples(loop, left, depth + 1) and self._sums_samples(
                    loop, right, depth + 1
                )
            if isinstance(expr.operator, cst.Multiply):
                return (
                    self._batch_size(loop, left, depth + 1)
                    or self._batch_size(loop, right, depth + 1)
                    or (
                        self._sums_samples(loop, left, depth + 1)
                        and self._sums_samples(loop, right, depth + 1)
                    )
                )
            return False
        if isinstance(expr, cst.Name):
            found, value = self._bound_in_loop(loop, expr)
            if found:
                return value is not None and self._sums_samples(loop, value, depth + 1)
            return isinstance(self._initial_value(loop, expr.value), (cst.Integer, cst.Float))
        if not isinstance(expr, cst.Call):
            return False
        func = expr.func
        if isinstance(func, cst.Attribute):
            if func.attr.value in ("sum", "count_nonzero", "numel"):
                # `.sum()` of one mean over the batch (`criterion(out, y).sum()` of a
                # mean-reduced loss) is that mean: one figure per batch, not per sample
                return not mean_over_batch(self, func.value)
            if func.attr.value in _CONVERSIONS:
                return self._sums_samples(loop, func.value, depth + 1)
        if self.matches(func, _TORCH_SUMS):
            return True
        if name_of(func) in ("float", "int") and len(expr.args) == 1:
            return self._sums_samples(loop, expr.args[0].value, depth + 1)
        if _reduction_sum(expr):
            return True
        if isinstance(func, cst.Name):  # `crit(out, y)` of `crit = nn.MSELoss(reduction="sum")`
            # every binding reaching the call (the def-use view): a criterion an option picks
            # in an if/elif chain (round 32, bridgeqiqi/DIP2021-FinalPJbaseline@6c8f3a2: the
            # backward scaled as a sum, its epoch figure said "not proved a sum", DP058)
            bound = [d for d in view(self._module_node).reaching(func) if d.kind != "store"]
            return bool(bound) and all(
                d.kind == "assign"
                and not d.element
                and isinstance(d.value, cst.Call)
                and _reduction_sum(d.value)
                for d in bound
            )
        if isinstance(func, cst.Attribute) and name_of(func.value) == "self":
            return self._summing_attribute(loop, func.attr.value)
        return False

    def _summing_attribute(self, loop: cst.For, attr: str) -> bool:
        """`self.criterion(out, y)` where every `self.criterion = ...` of the loop's class
        builds a loss with `reduction="sum"` (a Trainer's criterion made in `__init__`)."""
        owner: cst.CSTNode | None = loop
        while owner is not None and not isinstance(owner, cst.ClassDef):
            owner = self.parent(owner)
        if owner is None:
            return False
        built = [
            node.value
            for node in walk(owner)
            if isinstance(node, cst.Assign)
            and any(
                isinstance(t.target, cst.Attribute)
                and name_of(t.target.value) == "self"
                and t.target.attr.value == attr
                for t in node.targets
            )
        ]
        return bool(built) and all(
            isinstance(value, cst.Call) and _reduction_sum(value) for value in built
        )

    def _batch_size(self, loop: cst.For, expr: cst.BaseExpression, depth: int) -> bool:
        """`x.size(0)`, `x.shape[0]`, `len(x)` (or a name the loop binds to one): the
        number of samples of a batch."""
        if depth > MAX_DEPTH:
            return False
        if isinstance(expr, cst.Call):
            func = expr.func
            if isinstance(func, cst.Attribute) and func.attr.value == "size":
                first = expr.args[0].value if expr.args else None
                return isinstance(first, cst.Integer) and first.value == "0"
            return name_of(func) == "len" and isinstance(func, cst.Name) and len(expr.args) == 1
        if isinstance(expr, cst.Subscript):
            base = expr.value
            index = expr.slice[0].slice if len(expr.slice) == 1 else None
            return (
                isinstance(base, cst.Attribute)
                and base.attr.value == "shape"
                and isinstance(index, cst.Index)
                and isinstance(index.value, cst.Integer)
                and index.value.value == "0"
            )
        if isinstance(expr, cst.Name):
            found, value = self._bound_in_loop(loop, expr)
            return found and value is not None and self._batch_size(loop, value, depth + 1)
        return False

    def _bound_in_loop(
        self, loop: cst.For, name: cst.Name
    ) -> tuple[bool, cst.BaseExpression | None]:
        """Whether the loop binds `name` (its target, or a statement of its body before the
        use), and to what value when that is plain to see."""
        if any(n.value == name.value for n in variables_under(loop.target)):
            return True, None
        line = self.get_metadata(PositionProvider, name).start.line
        found: tuple[bool, cst.BaseExpression | None] = (False, None)
        for node in walk(loop.body, skip_scopes=True):
            if not isinstance(node, cst.SimpleStatementLine):
                continue
            if self.get_metadata(PositionProvider, node).start.line >= line:
                continue
            bound, value = bound_value(node, name.value)
            if bound:
                found = (True, value)
        return found


def _root_name(node: cst.BaseExpression) -> str | None:
    """`self` of `self.meter` (of `self.a.b`), the name an attribute chain starts from."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return node.value if isinstance(node, cst.Name) else None


def _bound_in(loop: cst.For | cst.While) -> set[str]:
    """The names `loop` binds: its target's and its body's (assignments, nested loops' and
    `with`'s targets, walrus)."""
    found = set(target_names(loop.target)) if isinstance(loop, cst.For) else set()
    for node in walk(loop.body, skip_scopes=True):
        if isinstance(node, cst.Assign):
            found.update(n for t in node.targets for n in target_names(t.target))
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.NamedExpr, cst.For)):
            found.update(target_names(node.target))
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            found.update(target_names(node.asname.name))
    return found


def _invariant(value: cst.BaseExpression, bound: set[str]) -> bool:
    """`value` is a name or an attribute chain of one (`self.batch_size`, `args.bs`) the
    loop does not bind."""
    while isinstance(value, cst.Attribute):
        value = value.value
    return isinstance(value, cst.Name) and value.value not in bound
