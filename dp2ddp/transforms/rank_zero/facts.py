"""What every rank_zero rule reads: one walk of the module before anything is rewritten
(loggers, writers, runs and bars it binds, whether it loads a checkpoint, functions called
only on rank 0), and where a node is (already on rank 0 only, in an `except`, above the
inserted setup block)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import origins, view
from dp2ddp.transforms._support.ast_nodes import import_table, parse_python
from dp2ddp.transforms._support.names import DATAPARALLEL, DISTRIBUTED_DATA_PARALLEL
from dp2ddp.transforms._support.nodes import (
    after_imports,
    bound_names,
    calls_under,
    enclosing_function,
    is_script_guard,
    unmoved,
    walk,
)
from dp2ddp.transforms._support.qualified import told_name
from dp2ddp.transforms._support.visiting import read_tree
from dp2ddp.transforms.analysis.guards import (
    exits_block,
    is_main_test,
    is_not_main_test,
    mentions_rank,
)
from dp2ddp.transforms.analysis.object_returns import object_functions
from dp2ddp.transforms.analysis.uniformity import RankUniformity
from dp2ddp.transforms.rank_zero.program_hints import pure_functions
from dp2ddp.transforms.rank_zero.side_effects import (
    LOGGING_GET_LOGGER,
    OTHER_BARS,
    PIL_IMAGES,
    PLOT_CLIENTS,
    SUMMARY_WRITER,
    TORCH_LOAD,
    TQDM,
    WANDB_INIT,
    has_side_effects,
)

if TYPE_CHECKING:
    from dp2ddp.transforms.rank_zero import RankZeroOnly


class RankZeroFacts:
    """The module's facts and place queries, shared by the rules of one rank_zero run."""

    def __init__(self, transform: RankZeroOnly, module: cst.Module) -> None:
        self.t = transform
        self.module = module
        #: Functions returning a PIL image (image_maker), found once.
        self.makers: frozenset[str] | None = None
        #: Module statements before the setup block.
        self.early: list[cst.BaseStatement] = list(module.body[: after_imports(list(module.body))])
        self.loggers: set[str] = set()  # names/attributes bound to a logger
        self.writers: set[str] = set()  # ... to a SummaryWriter
        self.runs: set[str] = set()  # ... to a wandb run
        self.bars: set[str] = set()  # ... to a tqdm bar (`bar.write(...)` prints)
        self.images: set[str] = set()  # ... to a PIL image (`img.save(path)` writes a file)
        self.loads = False  # the script calls torch.load (a save then needs a barrier)
        self.guarded_callees: set[str] = set()  # called only under a rank-0 test
        #: (id of the enclosing function or 0, name) -> the qualified names of the class
        #: every binding of that name there calls (`metrics = StreamSegMetrics(...)`);
        #: None once it is bound any other way (see instance_methods).
        self.instances: dict[tuple[int, str], frozenset[str] | None] = {}
        #: (id of the enclosing function or 0, name) of the modules a wrap was built from
        #: under another name (`model = DistributedDataParallel(model_single.to(DEVICE))`):
        #: `model_single(z)` is `model.module(z)` spelled by its own name (see
        #: instance_methods).
        self.unwrapped: set[tuple[int, str]] = set()
        #: The comprehensions' `for` clauses (set_orders.py: the orders they take).
        self.comp_fors: list[cst.CompFor] = []
        #: The `for` loops (set_orders.py: a loop over a set that numbers or orders by it).
        self.for_loops: list[cst.For] = []
        #: The module builds a set (`set(...)`, `frozenset(...)`, a display or comprehension):
        #: without one, set_orders.py has nothing to ask.
        self.sets = False
        read_tree(module, _Collector(self))
        self.uniform = RankUniformity.for_pass(transform, module)
        self.pure: frozenset[str] | None = None  # see pure_functions

    def does_work(self, argument: cst.BaseExpression) -> bool:
        """The argument may do work other ranks need (side_effects.has_side_effects)."""
        return has_side_effects(argument, self.instance_methods, self.pure_functions())

    def instance_methods(self, node: cst.CSTNode) -> set[str]:
        """The call target's qualified names, and for `x.method` where every binding of
        `x` in its function is `x = C(...)`, "C.method" too: a pure method of a project
        class (program_hints) is then known (DeepLabV3Plus's `metrics.to_str(score)`)."""
        names = self.t.qualified_names(node)
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
            classes = self.instances.get((self.scope_id(node), node.value.value))
            if classes:
                names = names | {f"{c}.{node.attr.value}" for c in classes}
        inner = self.unwrapped_path(node)
        if inner is not None:
            names = names | {f"{_WRAPPED_MODULE}{inner}"}
        return names

    def unwrapped_path(self, node: cst.CSTNode) -> str | None:
        """`model_single` (and `.reverse` of `model_single.reverse`) where the name is a
        module a wrap was built from under another name: the attribute path after it ("" for
        the name itself), so that it reads as `model.module...` does (rosinality/glow-pytorch
        @97081ff's sample grid from `model_single.reverse(z)` was written by every rank, the
        same line through `model.module` on rank 0 alone). Bound in this function, or at
        module level and not bound in this function (a global read in `train()`)."""
        path = ""
        while isinstance(node, cst.Attribute):
            path = f".{node.attr.value}{path}"
            node = node.value
        if not isinstance(node, cst.Name) or not self.unwrapped:
            return None
        scope = self.scope_id(node)
        if (scope, node.value) in self.unwrapped:
            return path
        if (0, node.value) in self.unwrapped and (scope, node.value) not in self.instances:
            return path
        return None

    def scope_id(self, node: cst.CSTNode) -> int:
        function = enclosing_function(node, self.t)
        return id(function) if function is not None else 0

    def bind(self, node: cst.CSTNode, name: str, value: cst.BaseExpression | None) -> None:
        """`name` is bound at `node` to `value` (None: a binding that is not `= C(...)`)."""
        key = (self.scope_id(node), name)
        classes = (
            frozenset(self.t.qualified_names(value.func)) if isinstance(value, cst.Call) else None
        )
        if key in self.instances and self.instances[key] != classes:
            classes = None
        self.instances[key] = classes or None

    def text(self) -> str:
        """The module's code: the pipeline hands each pass the text of the tree it gives it
        (state.text), so it is not printed again (a rule run on its own has none)."""
        return self.t.state.text or self.module.code

    def pure_functions(self) -> frozenset[str]:
        """Functions of this module and the program safe to skip off rank 0 (lazily: an
        ast parse of the module, only when a guarded call's arguments call something)."""
        if self.pure is None:
            tree = parse_python(self.text())
            self.pure = self.t.state.hints.pure | pure_functions([("", tree, False)])
        return self.pure

    def created_by(self, value: cst.BaseExpression | None) -> str | None:
        if isinstance(value, cst.IfExp):
            value = value.body
        if not isinstance(value, cst.Call):
            return None
        func = value.func
        if isinstance(func, cst.IfExp):
            func = func.body  # `(SummaryWriter if ddp_is_main() else DdpNullWriter)(...)`
        names = self.t.qualified_names(func)
        if names & LOGGING_GET_LOGGER:
            return "logger"
        if names & (SUMMARY_WRITER | PLOT_CLIENTS):
            return "writer"
        if names & WANDB_INIT:
            return "run"
        if names & (TQDM | OTHER_BARS):
            return "bar"
        if names & PIL_IMAGES or self.image_maker(names):
            return "image"
        return None

    def image_maker(self, names: set[str]) -> bool:
        """A function of the program whose every return is a PIL image (`stitch_images`,
        ProgramHints.image_makers), by its qualified name (a relative import's by its tail)."""
        if self.makers is None:
            self.makers = self.t.state.hints.image_makers
            if self.t.state.hints.printing is None:  # no program told: this module's own
                tree = parse_python(self.text())
                table = import_table(tree, "", False)
                self.makers |= object_functions(tree, table, PIL_IMAGES)
        return told_name(names, self.makers) is not None

    def track(self, target: cst.CSTNode, value: cst.BaseExpression | None) -> None:
        """Remember `x` of `x = SummaryWriter()`; `.x` for `self.x = ...` (any owner)."""
        kind = self.created_by(value)
        if kind is None:
            return
        key = "." + target.attr.value if isinstance(target, cst.Attribute) else self.t.code(target)
        kinds = {"logger": self.loggers, "writer": self.writers, "run": self.runs}
        kinds["bar"] = self.bars
        kinds["image"] = self.images
        kinds[kind].add(key)

    def tracked(self, receiver: cst.BaseExpression, keys: set[str]) -> bool:
        if isinstance(receiver, cst.Attribute):
            return "." + receiver.attr.value in keys
        return self.t.code(receiver) in keys

    # -- where a node is ----------------------------------------------------------------------
    def under_guard(self, node: cst.CSTNode) -> bool:
        """The node only runs on rank 0 already."""
        child, parent = node, self.t.parent(node)
        while parent is not None and not isinstance(parent, cst.Module):
            if isinstance(parent, cst.If):
                if child is parent.body and self.main_test(parent.test):
                    return True
                if child is parent.body and self.dead_script_block(parent):
                    return True
                if child is parent.orelse and self.main_test(parent.test, main=False):
                    return True
            elif isinstance(parent, cst.IfExp):
                if child is parent.body and self.main_test(parent.test):
                    return True
            elif isinstance(parent, cst.IndentedBlock):
                for sibling in parent.body:
                    if sibling is child:
                        break
                    if (
                        isinstance(sibling, cst.If)
                        and exits_block(sibling)
                        and self.main_test(sibling.test, main=False)
                    ):
                        return True
            elif isinstance(parent, cst.FunctionDef):
                return parent.name.value in self.guarded_callees or self.unused(parent)
            child, parent = parent, self.t.parent(parent)
        return False

    def main_test(self, test: cst.BaseExpression, *, main: bool = True) -> bool:
        """`test` holds on rank 0 only (`main`; else on every rank but 0): spelled so
        (analysis.guards), and its rank is one: not a name every binding of which is a
        literal (`local_rank = 0` kept for a distributed mode the program does not use,
        handed on to `fit(..., local_rank)`: the same 0 on every rank of the migration,
        so the test guards nothing; round 20 of issue 28)."""
        spelled = is_main_test(test) if main else is_not_main_test(test)
        return spelled and not self._constant_rank(test)

    def _constant_rank(self, test: cst.BaseExpression) -> bool:
        """Every rank-named value `test` reads comes from literals only (flow.origins)."""
        names = [n for n in walk(test) if isinstance(n, cst.Name) and mentions_rank(n)]
        if not names:
            return False
        flow = view(self.module)
        for name in names:
            found = origins(flow, name)
            if not found or any(o.kind != "constant" for o in found):
                return False
        return True

    def unused(self, function: cst.FunctionDef) -> bool:
        """A top-level function of a library module that nothing in the program refers to
        (a model file's demo `test()` printing a shape): dead code for this program, so it
        is left as written, and a module with nothing else to migrate stays unchanged."""
        return function.name.value in self.t.state.hints.unused and isinstance(
            self.t.parent(function), cst.Module
        )

    def dead_script_block(self, node: cst.If) -> bool:
        """`if __name__ == "__main__":` in a module the program imports: it never runs in
        this program (a model file's demo), so it is left as written."""
        return (
            self.t.state.hints.imported
            and isinstance(self.t.parent(node), cst.Module)
            and is_script_guard(node.test)
        )

    def in_except(self, node: cst.CSTNode) -> bool:
        parent = self.t.parent(node)
        while parent is not None and not isinstance(parent, (cst.Module, cst.FunctionDef)):
            if isinstance(parent, (cst.ExceptHandler, cst.ExceptStarHandler)):
                return True
            parent = self.t.parent(parent)
        return False

    def before_setup(self, node: cst.CSTNode) -> bool:
        """At module level above the inserted setup block, where DEVICE etc. do not exist yet."""
        child, parent = node, self.t.parent(node)
        while parent is not None and not isinstance(parent, cst.Module):
            child, parent = parent, self.t.parent(parent)
        return any(statement is child for statement in self.early)


class _Collector(cst.CSTVisitor):
    """The walk before the rewrite: loggers, writers, runs, loads, guarded callees."""

    def __init__(self, facts: RankZeroFacts) -> None:
        super().__init__()
        self.t = facts.t
        self.facts = facts

    def visit_Assign(self, node: cst.Assign) -> None:
        inner = self._wrapped(node.value)
        if inner is not None and all(
            not isinstance(t.target, cst.Name) or t.target.value != inner for t in node.targets
        ):
            self.facts.unwrapped.add((self.facts.scope_id(node), inner))
        for target in node.targets:
            self.facts.track(target.target, node.value)
            single = target.target if len(node.targets) == 1 else None
            for name in bound_names(target.target):
                self.facts.bind(node, name.value, node.value if name is single else None)

    def _wrapped(self, value: cst.BaseExpression) -> str | None:
        """The name a wrap `DistributedDataParallel(inner.to(DEVICE), ...)` (or a
        DataParallel one) is built from, through calls that move it; None otherwise."""
        if not (
            isinstance(value, cst.Call)
            and value.args
            and self.t.matches(value.func, DISTRIBUTED_DATA_PARALLEL | DATAPARALLEL)
        ):
            return None
        inner = unmoved(value.args[0].value)
        return inner.value if isinstance(inner, cst.Name) else None

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.facts.track(node.target, node.value)
        for name in bound_names(node.target):
            self.facts.bind(node, name.value, None)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        for name in bound_names(node.target):
            self.facts.bind(node, name.value, None)

    def visit_For(self, node: cst.For) -> None:
        self.facts.for_loops.append(node)
        for name in bound_names(node.target):
            self.facts.bind(node, name.value, None)

    def visit_Param(self, node: cst.Param) -> None:
        self.facts.bind(node, node.name.value, None)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self.facts.comp_fors.append(node)
        for name in bound_names(node.target):
            self.facts.bind(node, name.value, None)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        bound: cst.BaseExpression = node.asname.name if node.asname is not None else node.name
        while isinstance(bound, cst.Attribute):
            bound = bound.value
        if isinstance(bound, cst.Name):
            self.facts.bind(node, bound.value, None)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self.facts.track(node.asname.name, node.item)
            for name in bound_names(node.asname.name):
                self.facts.bind(node, name.value, None)

    def visit_Call(self, node: cst.Call) -> None:
        if self.t.matches(node.func, TORCH_LOAD):
            self.facts.loads = True
        if isinstance(node.func, cst.Name) and node.func.value in ("set", "frozenset"):
            self.facts.sets = True

    def visit_Set(self, node: cst.Set) -> None:
        self.facts.sets = True

    def visit_SetComp(self, node: cst.SetComp) -> None:
        self.facts.sets = True

    def visit_If(self, node: cst.If) -> None:
        if not self.facts.main_test(node.test):
            return
        for call in calls_under(node.body):
            func = call.func
            if isinstance(func, cst.Name):
                self.facts.guarded_callees.add(func.value)
            elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
                if func.value.value == "self":
                    self.facts.guarded_callees.add(func.attr.value)


#: The qualified name `model.module` of a migrated wrap `model` resolves to: pure, as torch's
#: names are (side_effects.pure_name), so a save of `model.module(z)` goes to rank 0.
_WRAPPED_MODULE = "torch.nn.parallel.DistributedDataParallel.module"
