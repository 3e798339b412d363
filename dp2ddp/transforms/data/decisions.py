"""Figures of a loader's loop that decide when training stops.

A loop over a loader that does not train (an evaluation the program runs without `eval()` or
`no_grad()`, so the data pass cannot tell it from training) computes figures from the batches
it sees. Sharded, each rank sees its own batches, and where such a figure decides a `break`
out of a loop that trains (early stopping: `if bad >= patience: break`, or
`if early_stopping.early_stop: break` with the object's attribute set from the figure it was
called with), the ranks decide apart: one leaves the training loop while the others wait in
the next gradient all-reduce forever (real-world: zhouhaoyi/Informer2020@29f2a73). This
module follows the figures forward over the module's def-use view: through assignments, the
`if`s they decide (what is assigned under them), a function's return to its call sites, a
call's argument to the parameter of a function or method of this module, and `self.attr` to
the reads of that attribute. A figure handed to an object whose code is elsewhere (an
instance of another module's EarlyStopping) taints the object: `if stopper.early_stop:`
reads it. A may-analysis: what it finds keeps the loader whole.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import libcst as cst

from dp2ddp.flow import DefUse, code
from dp2ddp.transforms._support.grad_mode import Matches, grad_off
from dp2ddp.transforms._support.nodes import variables_under, walk
from dp2ddp.transforms.analysis.training import QualifiedNames, loop_trains

#: How far the figure is followed (items: a name, a function's return, an attribute).
_MAX_ITEMS = 200
_ACCUMULATE = frozenset({"append", "extend", "add", "update", "insert"})
_COLLECTIVES = frozenset({"all_reduce", "barrier", "broadcast", "all_gather", "reduce"})
_WRAPS = frozenset({"DataParallel", "DistributedDataParallel"})


@dataclass(frozen=True)
class Decision:
    """A `break` decided by a figure: the `if` whose test reads it, and the nodes the figure
    went through from the loop (for the message, source first)."""

    test: cst.If
    path: tuple[cst.CSTNode, ...]
    #: What the decided branch does that every rank must do alike ("" for a `break` out
    #: of the training loop): runs the wrapped model (a DDP forward syncs its buffers, a
    #: training step all-reduces), or a collective of torch.distributed.
    runs: str = ""


def deciding_break(
    flow: Callable[[], DefUse], loop: cst.For, names: QualifiedNames
) -> Decision | None:
    """The first `if` whose test reads a figure of `loop` and whose body leaves a loop that
    trains (calls `.backward()`); None when no figure of the loop reaches one, or when
    `loop` trains itself (analysis/training.py; a training loss deciding a break is
    DP032's). `flow` gives the module's view, asked for only where the loop does not
    train (a training loop costs one walk of its body)."""
    return None if loop_trains(loop, names) else _Follow(flow()).run(loop)


def no_grad_inside(loop: cst.For, matches: Matches, names: QualifiedNames) -> bool:
    """The loop does not train itself and runs under a `with torch.no_grad():` in its own
    body (`for x, y in loader: with torch.no_grad(): out = model(x)`, the caller having
    switched `.eval()`: ming024/FastSpeech2@d4e79eb's evaluate.py): an evaluation. Sharded
    as training data, its figures were this rank's share, summed by nothing (class Q2).
    The caller also looks in the module's functions the body calls (`train_step(model,
    batch)`): a training loop with a no_grad block of its own (a metric, a weight clamp)
    stays one."""
    return not loop_trains(loop, names) and any(
        isinstance(n, cst.With) and any(grad_off(item.item, matches) for item in n.items)
        for n in walk(loop.body, skip_scopes=True)
    )


class _Follow:
    def __init__(self, flow: DefUse) -> None:
        self.flow = flow
        self.seen: set[tuple[object, ...]] = set()
        self.todo: list[tuple[tuple[object, ...], tuple[cst.CSTNode, ...]]] = []
        self.attributes: dict[str, list[cst.Attribute]] | None = None

    def run(self, loop: cst.For) -> Decision | None:
        scope = self.flow.scope_of(loop)
        for node in walk(loop.body, skip_scopes=True):
            for target in _assigned(node):
                self._taint_target(target, (node,))
            if (
                isinstance(node, cst.Call)
                and isinstance(node.func, cst.Attribute)
                and node.func.attr.value in _ACCUMULATE
                and isinstance(node.func.value, cst.Name)
            ):
                self._push(("name", scope, node.func.value.value), (node,))
        count = 0
        while self.todo and count < _MAX_ITEMS:
            count += 1
            item, path = self.todo.pop(0)
            for use in self._uses(item):
                found = self._climb(use, path)
                if found is not None:
                    return found
        return None

    def _push(self, item: tuple[object, ...], path: tuple[cst.CSTNode, ...]) -> None:
        if item not in self.seen:
            self.seen.add(item)
            self.todo.append((item, path))

    def _uses(self, item: tuple[object, ...]) -> Iterator[cst.CSTNode]:
        kind = item[0]
        if kind == "name":
            scope, name = item[1], item[2]
            assert isinstance(name, str)
            yield from self.flow.uses(scope, name)  # type: ignore[arg-type]
        elif kind == "call":
            function = item[1]
            for found in self.flow.functions.values():
                if found.node is function:
                    yield from self.flow.call_sites(found)
        elif kind == "attr":
            owner, attr = item[1], item[2]
            assert isinstance(attr, str)
            if self.attributes is None:  # one walk of the module for every attribute
                self.attributes = {}
                for node in walk(self.flow.module):
                    if isinstance(node, cst.Attribute):
                        self.attributes.setdefault(node.attr.value, []).append(node)
            for node in self.attributes.get(attr, []):  # `obj.attr` of instances of `owner`
                if self._instance_of(node.value, owner):
                    yield node

    def _instance_of(self, value: cst.BaseExpression, owner: object) -> bool:
        if not isinstance(value, cst.Name):
            return False
        for definition in self.flow.definitions(value):
            if definition.kind == "param" and value.value == "self":
                function = self.flow.function_around(definition.target)
                if function is not None and function.owner is owner:
                    return True
            if isinstance(definition.value, cst.Call):
                if self.flow.class_called(definition.value) is owner:
                    return True
        return False

    def _climb(self, use: cst.CSTNode, path: tuple[cst.CSTNode, ...]) -> Decision | None:
        """Where the value read at `use` goes: up its expression to the statement."""
        child: cst.CSTNode = use
        for parent in self.flow.ancestors(use):
            if isinstance(parent, cst.Arg) and parent.value is child:
                call = self.flow.parent(parent)
                if isinstance(call, cst.Call):
                    self._enter(call, parent, path + (call,))
            elif isinstance(parent, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
                if parent.value is child:
                    for target in _assigned(parent):
                        self._taint_target(target, path + (parent,))
                return None
            elif isinstance(parent, cst.Return):
                function = self.flow.function_around(parent)
                if function is not None:
                    self._push(("call", function.node), path + (parent,))
                return None
            elif isinstance(parent, (cst.If, cst.While)):
                if parent.test is not child:
                    return None
                if isinstance(parent, cst.If) and self._leaves_training(parent):
                    return Decision(parent, path + (parent,))
                if isinstance(parent, cst.If) and (runs := self._collective(parent)):
                    return Decision(parent, path + (parent,), runs)
                for node in _under_branches(parent):
                    for target in _assigned(node):
                        self._taint_target(target, path + (parent,))
                return None
            elif isinstance(parent, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                return None
            child = parent
        return None

    def _enter(self, call: cst.Call, arg: cst.Arg, path: tuple[cst.CSTNode, ...]) -> None:
        """An argument of a call of this module's function or an instance's `__call__`: the
        parameter it binds."""
        callees = list(self.flow.callees(call))
        if isinstance(call.func, cst.Name):  # `early_stopping(figure)`: the instance's __call__
            for definition in self.flow.definitions(call.func):
                if isinstance(definition.value, cst.Call):
                    owner = self.flow.class_called(definition.value)
                    method = self.flow.method(owner, "__call__") if owner is not None else None
                    if method is not None:
                        callees.append(method)
        if not callees:
            self._taint_receiver(call, path)
        for callee in callees:
            params = [p for p in callee.params if p.star == ""]
            if callee.self_name is not None:
                params = params[1:]
            index = call.args.index(arg)
            param: cst.Param | None = None
            if arg.keyword is not None:
                param = next((p for p in params if p.name.value == arg.keyword.value), None)
            elif arg.star == "" and index < len(params):
                param = params[index]
            if param is not None:
                self._push(("name", self.flow.scope_of(param.name), param.name.value), path)

    def _taint_receiver(self, call: cst.Call, path: tuple[cst.CSTNode, ...]) -> None:
        """A figure handed to an object whose code this module does not have (an instance
        of an imported class: `early_stopping(vali_loss, model, path)` with EarlyStopping
        from utils/tools.py, or `tracker.update(vali_loss)`): the object may keep it, so
        its attributes carry it (`if early_stopping.early_stop: break`). Modules, functions
        and classes are not objects that keep it."""
        func = call.func
        if (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value == "self"
        ):  # `self.early_stopping(figure)`: the object the attribute holds, not `self`
            self._taint_target(func, path)
            return
        receiver = func.value if isinstance(func, cst.Attribute) else func
        if isinstance(receiver, cst.Attribute):
            if isinstance(receiver.value, cst.Name) and receiver.value.value == "self":
                self._taint_target(receiver, path)
            return
        if not isinstance(receiver, cst.Name):
            return
        definitions = self.flow.definitions(receiver)
        if definitions and all(
            d.kind not in ("import", "def", "class")
            and (isinstance(func, cst.Attribute) or isinstance(d.value, cst.Call))
            for d in definitions
        ):
            self._taint_target(receiver, path)

    def _taint_target(self, target: cst.CSTNode, path: tuple[cst.CSTNode, ...]) -> None:
        if isinstance(target, cst.Name):
            self._push(("name", self.flow.scope_of(target), target.value), path)
        elif (
            isinstance(target, cst.Attribute)
            and isinstance(target.value, cst.Name)
            and target.value.value == "self"
        ):
            function = self.flow.function_around(target)
            owner = function.owner if function is not None else None
            if owner is not None:
                self._push(("attr", owner, target.attr.value), path)

    def _leaves_training(self, test: cst.If) -> bool:
        """A `break` in the `if` leaves a loop that calls `.backward()`."""
        for node in _under_branches(test):
            if isinstance(node, cst.Break):
                loop = next(
                    (a for a in self.flow.ancestors(node) if isinstance(a, (cst.For, cst.While))),
                    None,
                )
                if loop is not None and any(
                    isinstance(n, cst.Call)
                    and isinstance(n.func, cst.Attribute)
                    and n.func.attr.value == "backward"
                    for n in walk(loop, skip_scopes=True)
                ):
                    return True
        return False

    def _collective(self, test: cst.If) -> str:
        """The first call under the `if` that every rank must make alike (round 22,
        liucong3/audio_classification@08575b2: `if acc > best:` on a sharded validation's
        accuracy ran the test pass, DDP forwards, on one rank; the other went on to a
        barrier: the run hung): a collective of torch.distributed, or a call given (or of)
        a model wrapped in DataParallel or DDP (through its bindings); "" when none."""
        for node in _under_branches(test):
            if not isinstance(node, cst.Call):
                continue
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value in _COLLECTIVES:
                return code(node, 40)
            held = [func, *(a.value for a in node.args)]
            if any(self._wrapped(v) for v in held if isinstance(v, cst.Name)):
                return code(node, 40)
        return ""

    def _wrapped(self, name: cst.Name) -> bool:
        return any(
            isinstance(d.value, cst.Call) and code(d.value.func).rpartition(".")[2] in _WRAPS
            for d in self.flow.definitions(name)
        )


def _under_branches(node: cst.If | cst.While) -> Iterator[cst.CSTNode]:
    yield from walk(node.body, skip_scopes=True)
    if node.orelse is not None:
        yield from walk(node.orelse, skip_scopes=True)


def _assigned(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The names and `self.x` attributes an assignment binds."""
    if isinstance(node, cst.Assign):
        targets = [t.target for t in node.targets]
    elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
        targets = [node.target]
    else:
        return []
    found: list[cst.CSTNode] = []
    for target in targets:
        if isinstance(target, cst.Attribute):
            found.append(target)
        else:
            found.extend(variables_under(target))
    return found


#: Packages whose functions never backpropagate for their caller: what a loop calls of
#: them cannot make it train.
LIBRARY_ROOTS = frozenset(
    {
        "builtins", "os", "sys", "math", "time", "json", "pickle", "csv", "shutil",
        "pathlib", "logging", "random", "numpy", "torch", "torchvision", "PIL", "cv2",
        "imageio", "scipy", "skimage", "matplotlib", "h5py", "tqdm",
    }
)  # fmt: skip
#: Methods of tensors, arrays and strings that read or convert, never train.
_READING_METHODS = frozenset(
    {
        "detach", "cpu", "cuda", "to", "numpy", "item", "tolist", "float", "double",
        "long", "int", "half", "squeeze", "unsqueeze", "argmax", "argmin", "max", "min",
        "sum", "mean", "view", "reshape", "permute", "transpose", "clone", "contiguous",
        "sigmoid", "softmax", "round", "astype", "format", "join", "size", "numel",
        "clamp", "flatten", "exp", "log", "abs", "eq", "ne", "gt", "lt", "ge", "le",
        "append", "extend", "split", "replace", "strip", "startswith", "endswith",
    }
)  # fmt: skip


def never_trains(
    loop: cst.For,
    names: QualifiedNames,
    is_package: Callable[[cst.Call], bool],
    runs_module: Callable[[cst.Call], bool],
    hands_loss: Callable[[cst.For], bool],
) -> bool:
    """Proved: the loop runs a model (`runs_module`: a call of a torch module object, its
    forward) and backpropagates nowhere. No `.backward()`/`.step()` in its body, and every
    other call it makes is `is_package` (a package function such as `np.save`) or a
    reading method of a tensor, array or string (`y.detach().numpy()`); nothing yielded
    or returned. A call of the program's own code (`train_step(batch)`, `trainer.fit(x)`)
    may train, and then nothing is proved; a loop that runs no model (`pass`, batches
    collected) is no evaluation either. Such a loop is not training, whatever its loader's
    shuffle (class H1, stop 32: sharded as training data, a per-sample write gated to
    rank 0 lost the other rank's files). A package's function handed the loss (`hands_loss`:
    the wrapped model's output with gradients on, `trainer_step(loss, opt)`) may run the
    backward: nothing is proved there (stop 52, s2)."""
    return _runs_untrained(loop, names, is_package, runs_module) is True and not hands_loss(loop)


def only_gathers(
    loop: cst.For,
    names: QualifiedNames,
    is_package: Callable[[cst.Call], bool],
    runs_module: Callable[[cst.Call], bool],
) -> cst.Call | None:
    """Proved: the loop runs no model and backpropagates nowhere, and it collects its
    batches (`rows.append(x)`, returned: the first such call); every other call is a
    package function's or a reading method's, nothing is yielded or returned. Such a loop
    gathers the data for something made of all of it (a whitening fit, a mean:
    taufikxu/Triple-GAN@127948d's `AugmentWrapper`, class v3-A of stop 53), not a
    training: sharded as training data, each rank built it from its share."""
    if _runs_untrained(loop, names, is_package, runs_module) is not False:
        return None
    for node in walk(loop.body, skip_scopes=True):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if node.func.attr.value in ("append", "extend") and node.args:
                return node
    return None


def _runs_untrained(
    loop: cst.For,
    names: QualifiedNames,
    is_package: Callable[[cst.Call], bool],
    runs_module: Callable[[cst.Call], bool],
) -> bool | None:
    """None where the loop may train or hand its batches on (a backward or step, a call of
    the program's own code, a `yield` or `return`); else whether it runs a model."""
    if loop_trains(loop, names):
        return None
    ran = False
    for node in walk(loop.body, skip_scopes=True):
        if isinstance(node, (cst.Yield, cst.Return)):
            return None  # the batches are handed on, to a use not seen here
        if not isinstance(node, cst.Call) or is_package(node):
            continue
        if isinstance(node.func, cst.Name) and node.func.value.startswith("ddp_"):
            continue  # an inserted helper (`ddp_is_main()`): the pass is idempotent on its output
        if runs_module(node):
            ran = True
            continue
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in _READING_METHODS:
            continue
        return None
    return ran
