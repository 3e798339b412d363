"""Methods of the model's own class called on a wrap a device guard held (stop 56, v1-A).

hongjiang-ye/ReID_PCB@9606ffd wraps under `if torch.cuda.device_count() > 1:` and its
training function later calls `model.set_return_features(True)` on the model it is handed.
DataParallel has no such attribute either, so the original ran that line only unwrapped (one
device or none): the model's own class answered it. The wrap pass removes a device guard
(every process wraps, on CPU too), so the call met the DistributedDataParallel object on
every rank: AttributeError after the first epoch, and no warning said it.

Proved here, in a module where the body of a device guard the wrap pass removes wraps a name
T (`T = DataParallel(...)`): a call `T.m(...)` anywhere in the module, T as written: the
wrap's own name outside any function that takes a parameter of that name, or such a
parameter where a call of this module hands the function T at its place (`train(model, ...)`
for `def train(model, ...)`); where `m` is a
method of one of the program's model classes proved to run none of its layers
(ModelClass.quiet, analysis/layer_methods.py) and no method of nn.Module or DDP: rewritten
`T.module.m(...)`, what the original's unwrapped path called (the class's own method, on the
same module the wrapper holds). A method that runs the layers (ModelClass.runs) is rewritten
so only inside `with torch.no_grad():` (no gradient of it to average); elsewhere, called
through `.module` it would run them past DDP's forward, whose hooks average the gradients
over the ranks: said (DP190), not rewritten.

A wrap by the program's own forwarding DataParallel subclass (_support/forwarding_classes.py,
rebased on DDP) answers such a call through its `__getattr__`, guarded or not, under DDP as
under DataParallel: no AttributeError, but a layer-running method so called still runs
outside DDP's forward, so no gradient of it is averaged and the ranks train apart
(bpowell122/tomodrgn@e19eae9, stop 59 s2's remainder): said (DP190, its own text), a method
running no layer left as written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import DefUse, view
from dp2ddp.transforms._support.nodes import NO_GRAD, walk
from dp2ddp.transforms.analysis.bare_modules import empty_classes
from dp2ddp.transforms.analysis.device_lists import device_list_reads
from dp2ddp.transforms.analysis.device_terms import drop_device_terms, is_device_term
from dp2ddp.transforms.analysis.layer_methods import held_runs, layer_methods, quiet_through_held

if TYPE_CHECKING:
    from dp2ddp.transforms._support.base import MigrationTransform

#: nn.Module's methods that run none of the forward.
MODULE_API = frozenset(
    "parameters named_parameters buffers named_buffers children named_children modules "
    "named_modules state_dict load_state_dict train eval zero_grad to cpu cuda half float "
    "double bfloat16 type apply requires_grad_ register_buffer register_parameter add_module "
    "register_module get_submodule get_parameter get_buffer register_forward_hook "
    "register_forward_pre_hook register_full_backward_hook register_backward_hook "
    "extra_repr share_memory".split()
)
#: DistributedDataParallel's own attributes besides nn.Module's: a class method of the same
#: name is the wrapper's answer, not the model's.
_DDP_OWN = frozenset({"module", "forward", "no_sync", "join", "join_hook", "register_comm_hook"})


def guard_wrapped_names(
    module: cst.Module,
    is_wrap: Callable[[cst.CSTNode], bool],
    code: Callable[[cst.CSTNode], str],
) -> frozenset[str]:
    """The names (as written) a device guard's body binds to a wrap, where the guard has
    only device terms (the wrap pass removes it, or hoists the wrap out of it): the
    original's model was unwrapped wherever the guard was false."""
    names: set[str] = set()
    for node in walk(module):
        if not isinstance(node, cst.If) or not isinstance(node.body, cst.IndentedBlock):
            continue
        test = code(node.test)
        if not is_device_term(test) or drop_device_terms(node.test, []) is not True:
            continue
        for stmt in node.body.body:
            if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
                continue
            assign = stmt.body[0]
            if isinstance(assign, cst.Assign) and len(assign.targets) == 1:
                if any(is_wrap(n) for n in walk(assign.value)):
                    names.add(code(assign.targets[0].target))
    return frozenset(names)


def guard_unwraps(
    module: cst.Module, wrapped: frozenset[str], code: Callable[[cst.CSTNode], str]
) -> Iterator[tuple[cst.If, frozenset[str]]]:
    """Each `if <device terms only>: T = T.module` (no else, nothing else in its body) with
    T in `wrapped` (guard_wrapped_names), and the names it unwraps.

    The guard pairs the wrap's: the original wrapped and unwrapped T together, so wherever
    the guard was false T was never wrapped, and after the unwrap it was bare on every path
    (G-U-N/PyCIL@87cc411, stop 59 v3-A: each learner's `incremental_train` wraps
    `self._network` under `if len(self._multiple_gpus) > 1:` and takes the wrapper off under
    the same test after training; `after_task` then calls `self._network.copy()`). The wrap
    pass drops the wrap's guard, so it drops this one too (every process unwraps, as every
    process wrapped), and T's own methods are then called on the bare model as the
    original called them: not rewritten through `.module`."""
    for node in walk(module):
        if not isinstance(node, cst.If) or node.orelse is not None:
            continue
        if not isinstance(node.body, cst.IndentedBlock) or not node.body.body:
            continue
        test = code(node.test)
        if not is_device_term(test) or drop_device_terms(node.test, []) is not True:
            continue
        if "isinstance(" in test:
            continue  # `if isinstance(T, nn.DataParallel):` stays, made DDP's by the wrap pass
        names: set[str] = set()
        for stmt in node.body.body:
            name = _unwrap_of(stmt, code)
            if name is None or name not in wrapped:
                break
            names.add(name)
        else:
            yield node, frozenset(names)


def _unwrap_of(stmt: cst.CSTNode, code: Callable[[cst.CSTNode], str]) -> str | None:
    """`T = T.module` -> "T" (as written); anything else -> None."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    assign = stmt.body[0]
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
        return None
    value = assign.value
    target = code(assign.targets[0].target)
    if isinstance(value, cst.Attribute) and value.attr.value == "module":
        if code(value.value) == target:
            return target
    return None


def own_method_calls(
    module: cst.Module,
    names: frozenset[str],
    methods: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]],
    code: Callable[[cst.CSTNode], str],
) -> Iterator[tuple[cst.Call, str, tuple[str, ...]]]:
    """(call, method, the model classes whose method of that name runs layers) for each
    `T.m(...)` with T in `names` and `m` a method of the program's model classes (`methods`:
    class -> (methods running layers, methods proved to run none)) that neither nn.Module
    (MODULE_API) nor DDP has. An empty tuple: proved to run none."""
    if not names:
        return
    for node in walk(module):
        if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
            continue
        method = node.func.attr.value
        if method in MODULE_API or method in _DDP_OWN or method.startswith("_"):
            continue
        if code(node.func.value) not in names:
            continue
        running = tuple(sorted(c for c, (runs, _) in methods.items() if method in runs))
        if running or any(method in quiet for _, quiet in methods.values()):
            yield node, method, running


def model_methods(t: MigrationTransform) -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """Per model class of the program (its short name): (the methods that run its layers,
    those proved to run none); this file's own for a single file."""
    models = t.state.facts.models
    if models:
        return {m.name.rsplit(".", 1)[-1]: (m.runs, m.quiet) for m in models}
    text = t.state.text or ""
    own = layer_methods("", text)
    held = held_runs("", text, False)
    if held:  # a method calling only a parameterless loss it holds runs no layer
        own = quiet_through_held(own, held, empty_classes("", text))
    return {name: (tuple(runs), tuple(quiet)) for name, (runs, quiet) in own.items()}


class OwnMethodCalls:
    """The wrap pass's collaborator: plans, when the module is entered, which calls of the
    model's own methods on a guard-wrapped name go through `.module` (the module docstring),
    warns DP190 at those that would run layers, and rewrites the planned calls."""

    def __init__(self, t: MigrationTransform, is_wrap: Callable[[cst.CSTNode], bool]) -> None:
        self.t = t
        self._is_wrap = is_wrap
        self._unwrapped: set[cst.Call] = set()
        #: The `if <device guard>: T = T.module` statements that go (guard_unwraps), by id.
        self._unwrap_guards: set[int] = set()

    def plan(self, module: cst.Module) -> None:
        t = self.t
        names = guard_wrapped_names(module, self._is_wrap, t.code)
        for guard, unwrapped in guard_unwraps(module, names, t.code):
            self._unwrap_guards.add(id(guard))
            names -= unwrapped  # bare again after the unwrap, as in the original
        forwarded = self._forwarding_wrapped(module)
        # a parameter another module's call hands a wrap a device guard held (ProgramHints.
        # wrap_reaches: `decode(model, x)` -> `def decode(model, x): model.greedy(x)`): the
        # original called the model's own method there unwrapped only, as here (round 20)
        hinted = _hinted_places(module, t.state.hints.wrap_reaches)
        names |= frozenset(param for _, _, param in hinted)
        if not names and not forwarded:
            return
        methods = model_methods(t)
        held_names = names | frozenset(forwarded)
        handed = _handed_places(module, held_names) | {(f, slot) for f, slot, _ in hinted}
        flow = view(module)
        for call, method, running in own_method_calls(module, held_names, methods, t.code):
            if not self._holds_wrap(call, handed) or self._before_the_wrap(flow, call):
                continue
            held = t.code(call.func.value)  # type: ignore[attr-defined]
            if running and not self._without_gradients(call):
                shown = f"`{t.code(call).strip()[:60]}` calls {method}() of {', '.join(running)}"
                if held in forwarded:
                    detail = (
                        f"{shown}, which runs its layers, through {held}, a wrap by "
                        f"{forwarded[held]}, whose __getattr__ hands the call to the wrapped "
                        "module: it runs outside DDP's forward, whose hooks alone average "
                        "the gradients over the ranks, so each rank trains on its own share "
                        "and the ranks' parameters drift apart (DataParallel ran it on one "
                        f"device, over the whole batch); route the calls through one forward "
                        f"(a forward() that calls {method}())"
                    )
                else:
                    detail = (
                        f"{shown}, which runs its layers, on {held}, wrapped only under a "
                        "device guard: the original ran it unwrapped"
                    )
                t.warn(call, "DP190", detail)
                continue
            if held not in names:
                continue  # the forwarding class answers it on the wrapped module, as before
            self._unwrapped.add(call)
            t.record(
                call,
                f"{held}.{method}() called on {held}.module: the original reached it unwrapped "
                "(its wrap was under a device guard), and the wrapper has no such method",
            )

    def _forwarding_wrapped(self, module: cst.Module) -> dict[str, str]:
        """The names (as written: `model`, `self.model`) bound anywhere in the module to a
        wrap by a forwarding DataParallel subclass (_support/forwarding_classes.py), with
        the class as called. Such a wrapper answers the model's own methods through its
        `__getattr__` (bpowell122/tomodrgn@e19eae9: `model.encode(x)`, `model.decode(z)`
        in training, never the wrapper's forward), under DDP as under DataParallel."""
        classes = frozenset(self.t.state.facts.reexports.forwarding)
        if not classes:
            return {}
        found: dict[str, str] = {}
        for node in walk(module):
            if not isinstance(node, cst.Assign) or len(node.targets) != 1:
                continue
            for part in walk(node.value):
                if not isinstance(part, cst.Call) or not self._is_wrap(part):
                    continue
                if self.t.qualified_names(part.func) & classes:
                    found[self.t.code(node.targets[0].target)] = self.t.code(part.func)
        return found

    def unguard(
        self, original: cst.If, updated: cst.If
    ) -> cst.FlattenSentinel[cst.BaseStatement] | None:
        """`if <device guard>: T = T.module` -> `T = T.module`: the guard of the wrap it
        pairs is gone, so every process unwraps (guard_unwraps)."""
        if id(original) not in self._unwrap_guards or not isinstance(
            updated.body, cst.IndentedBlock
        ):
            return None
        body = list(updated.body.body)
        body[0] = body[0].with_changes(leading_lines=[*updated.leading_lines])
        self.t.record(
            original,
            f"removed the guard `if {self.t.code(original.test)}` of the unwrap: it paired the "
            "wrap's, which DDP always makes, so every process takes the wrapper off",
        )
        return cst.FlattenSentinel(body)

    def device_list_reads(self, call: cst.Call) -> tuple[str, list[cst.CSTNode]] | None:
        """DP045's reads of a wrap's device list (analysis/device_lists.py) less those in
        the condition of an unwrap whose guard goes with the wrap's (unguard): no process
        reads them any more."""
        found = device_list_reads(call, self._is_wrap, self.t)
        if found is None:
            return None
        spelled, reads = found
        kept = [read for read in reads if not self._in_unwrap_guard(read)]
        return (spelled, kept) if kept else None

    def _in_unwrap_guard(self, node: cst.CSTNode) -> bool:
        child, parent = node, self.t.parent(node)
        while parent is not None:
            if isinstance(parent, cst.If) and child is parent.test:
                return id(parent) in self._unwrap_guards
            child, parent = parent, self.t.parent(parent)
        return False

    def _holds_wrap(self, call: cst.Call, handed: set[tuple[str, str]]) -> bool:
        """The `T` of `T.m(...)` is the wrap: no enclosing function has a parameter named T,
        or the innermost that has is handed T there by a call of this module."""
        held = self.t.code(call.func.value)  # type: ignore[attr-defined]
        node = self.t.parent(call)
        while node is not None:
            if isinstance(node, cst.FunctionDef):
                params = [*node.params.posonly_params, *node.params.params]
                params += node.params.kwonly_params
                for index, param in enumerate(params):
                    if param.name.value == held:
                        name = node.name.value
                        return (name, str(index)) in handed or (name, held) in handed
            node = self.t.parent(node)
        return True

    def _before_the_wrap(self, flow: DefUse, call: cst.Call) -> bool:
        """Every binding of `T` that reaches `T.m(...)` is known and none holds a wrap: the
        call runs before the wrap, on the model itself (andy-yun/pytorch-0.4-yolov3@7928dc9,
        stop 58 v1-C: `model = Darknet(cfg)`, `model.load_weights(path)`, then `model =
        DataParallel(model)` further down the same function; rewritten
        `model.module.load_weights`, both ranks died on AttributeError before training).
        Stores into the object (`model.seen = 0`) rebind nothing and are not counted."""
        held = call.func.value  # type: ignore[attr-defined]
        if not isinstance(held, cst.Name):
            return False
        bindings = [d for d in flow.reaching(held) if d.kind != "store"]
        return bool(bindings) and all(
            d.value is not None and not any(self._is_wrap(n) for n in walk(d.value))
            for d in bindings
        )

    def _without_gradients(self, call: cst.Call) -> bool:
        """`call` sits in a `with torch.no_grad():` (or inference_mode) of its function."""
        node = self.t.parent(call)
        while node is not None and not isinstance(node, (cst.FunctionDef, cst.Lambda)):
            if isinstance(node, cst.With) and any(
                self.t.qualified_names(i.item.func if isinstance(i.item, cst.Call) else i.item)
                & NO_GRAD
                for i in node.items
            ):
                return True
            node = self.t.parent(node)
        return False

    def rewrite(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        """`T.m(...)` -> `T.module.m(...)` for a planned call."""
        func = updated.func
        if original not in self._unwrapped or not isinstance(func, cst.Attribute):
            return updated
        inner = cst.Attribute(value=func.value, attr=cst.Name("module"))
        return updated.with_changes(func=func.with_changes(value=inner))


def _hinted_places(module: cst.Module, hints: frozenset[str]) -> set[tuple[str, str, str]]:
    """(function, slot, parameter) of this module's top-level functions whose parameter at
    `slot` (a position or a keyword) a call of another module may hand a wrap (`hints`:
    `function|slot`)."""
    if not hints:
        return set()
    functions = {s.name.value: s for s in module.body if isinstance(s, cst.FunctionDef)}
    found: set[tuple[str, str, str]] = set()
    for hint in hints:
        name, _, slot = hint.partition("|")
        function = functions.get(name)
        if function is None:
            continue
        params = [*function.params.posonly_params, *function.params.params]
        params += function.params.kwonly_params
        for index, param in enumerate(params):
            if slot in (str(index), param.name.value):
                found.add((name, slot, param.name.value))
    return found


def _handed_places(module: cst.Module, names: frozenset[str]) -> set[tuple[str, str]]:
    """(function, position or keyword) of each call of this module handing one of `names`
    as an argument: `train(model, opt)` -> ("train", "0"); `fit(net=model)` -> ("fit",
    "net"). A method's `self` is not counted: positions are the call's."""
    places: set[tuple[str, str]] = set()
    for node in walk(module):
        if not isinstance(node, cst.Call):
            continue
        func = node.func
        name = func.value if isinstance(func, cst.Name) else None
        if isinstance(func, cst.Attribute):
            name = func.attr.value
        if name is None:
            continue
        for index, arg in enumerate(node.args):
            if isinstance(arg.value, cst.Name) and arg.value.value in names:
                keyword = arg.keyword.value if arg.keyword is not None else str(index)
                places.add((name, keyword))
    return places
