"""Weights re-initialised in place after the DDP wrap (astorfi/cor-gan's
`model.apply(weights_init)` after `DataParallel(model)`): DDP copies rank 0's weights at the
wrap only, so each rank would go on training its own draw. model_wrap.py tells this
collaborator each call it leaves and asks it, block by block, where `ddp_broadcast_module(T)`
goes (or DP039 where a rank may leave the block before reaching it).

Round 22 (cls), UMBCvision/CompRess@c5e57ed: `model_key.apply(set_bn_train)` (a function that
only calls `m.train()`) inside a training function defined after main(), whose wrap of a
local `model_key` was read into the module's block through the def statement: the broadcast
went to module level after the later def, `ddp_broadcast_module(model_key)` with no
`model_key` bound there (NameError at import, every rank). A block's statements are read
for the wraps and re-initialisations they run themselves, not those of the functions and
classes they define (each body is a block of its own, asked in its turn), so the broadcast
stands where the wrap's name is bound and after the call; and an `apply(f)` of a function
that only switches modes (`train()`, `eval()`, `requires_grad_()`, `.requires_grad =`,
`.training =`, behind tests of the module's class) re-initialises nothing: no broadcast."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import view
from dp2ddp.flow.origins import argument_for
from dp2ddp.transforms._support.names import DDP_WRAPS, INIT_DRAWS, INPLACE_RANDOM_FILLS
from dp2ddp.transforms._support.nodes import name_of, walk
from dp2ddp.transforms.analysis.weight_draws import drawing_methods, weight_draw_calls

if TYPE_CHECKING:
    from dp2ddp.transforms._support.base import MigrationTransform

#: Methods that re-draw a module's weights in place (apply(f): f usually initialises).
_REINIT_METHODS = frozenset({"apply", "reset_parameters"})
#: Calls that make a function of the program a weight drawer for what it is handed:
#: torch.nn.init's drawing fillers and in-place random fills (a function that trains,
#: calling backward(), is no initialiser whatever it draws).
_HELPER_DRAWS = INIT_DRAWS | INPLACE_RANDOM_FILLS
#: What a function applied to every submodule may call and still only switch modes: the
#: switches themselves, and the tests of which module it is (`classname.find("BatchNorm")`).
_MODE_CALLS = frozenset(
    {"train", "eval", "requires_grad_", "isinstance", "hasattr", "getattr", "type", "str",
     "find", "startswith", "endswith", "lower", "upper", "len"}
)  # fmt: skip
#: The attributes such a function may set.
_MODE_ATTRIBUTES = frozenset({"requires_grad", "training"})


class ReinitBroadcasts:
    """Asked by the model-wrap pass `t` (which owns the warnings and records)."""

    def __init__(self, t: MigrationTransform) -> None:
        self.t = t
        #: Re-initialisations in place of a wrapped model (`model.apply(weights_init)`):
        #: the updated call -> (the original call, the wrap target it re-initialises).
        self._reinits: dict[cst.Call, tuple[cst.Call, str]] = {}
        self._draws: frozenset[str] | None = None

    def note(self, original: cst.Call, updated: cst.Call) -> None:
        """A call the pass left: kept when it re-initialises a wrapped model."""
        target = self._reinit_target(original)
        if target is not None:
            self._reinits[updated] = (original, target)

    def _reinit_target(self, call: cst.Call) -> str | None:
        """The wrap target `call` re-initialises in place, drawing new random weights:
        `T.apply(f)`, `T.module.reset_parameters()`, `nn.init.xavier_uniform_(T.fc.weight)`,
        `T.fc.weight.data.normal_()` (T: what a DataParallel wrap was assigned to)."""
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value == "apply" and self._switches(call):
            return None  # `T.apply(set_bn_train)`: modes switched, no weight drawn
        if isinstance(func, cst.Attribute) and (
            func.attr.value in _REINIT_METHODS or func.attr.value in INPLACE_RANDOM_FILLS
        ):
            return self._wrapped_root(self.t.code(func.value))
        if isinstance(func, cst.Attribute) and func.attr.value in self._drawing():
            # `T.module.init_weight()`: a method of the program's model class that draws
            # new weights (analysis/weight_draws.py; stop 61 v2-D)
            receiver = self.t.code(func.value)
            owner = receiver.removesuffix(".module")
            return owner if owner in self.t.state.wrapped else None
        if call.args and any(n.startswith("torch.nn.init.") for n in self.t.qualified_names(func)):
            return self._wrapped_root(self.t.code(call.args[0].value))
        return self._drawing_helper(call)

    def _drawing_helper(self, call: cst.Call) -> str | None:
        """The wrap target handed to a function of this module that draws new weights for
        what it is handed (`net = init_weights(net)`, the helper walking `net.modules()`
        with `nn.init.kaiming_normal_`: round 24, zsyOAOA/VDNet@599c153's
        weight_init_kaiming after the wrap; the ranks trained apart, unsaid)."""
        module: cst.CSTNode | None = call
        while module is not None and not isinstance(module, cst.Module):
            module = self.t.parent(module)
        if not isinstance(module, cst.Module) or not call.args:
            return None
        flow = view(module)
        for function in flow.callees(call):
            if function.owner is not None or not isinstance(function.node, cst.FunctionDef):
                continue
            called = {name_of(n.func) for n in walk(function.node.body) if isinstance(n, cst.Call)}
            if not called & _HELPER_DRAWS or "backward" in called:
                continue
            for param in function.params:
                given = argument_for(call, function, param)
                root = self._wrapped_root(self.t.code(given)) if given is not None else None
                if root is not None:
                    return root
        return None

    def _switches(self, call: cst.Call) -> bool:
        """`call` is `T.apply(f)` with `f` a lambda or a function of this module (every
        binding of its name a def) that only switches modes (_only_switches)."""
        if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
            return False
        applied = call.args[0].value
        if isinstance(applied, cst.Lambda):
            return _only_switches(applied.body)
        if not isinstance(applied, cst.Name):
            return False
        module: cst.CSTNode | None = call
        while module is not None and not isinstance(module, cst.Module):
            module = self.t.parent(module)
        if module is None:
            return False
        bound = view(module).definitions(applied)
        return (
            bool(bound)
            and all(d.kind == "def" and isinstance(d.statement, cst.FunctionDef) for d in bound)
            and all(
                _only_switches(d.statement)
                or (isinstance(d.statement, cst.FunctionDef) and _only_hooks(d.statement))
                for d in bound
            )
        )

    def _drawing(self) -> frozenset[str]:
        """The names of the model classes' methods that draw new weights: the program's
        (ModelClass.draws), or this file's own for a single file."""
        if self._draws is None:
            models = self.t.state.facts.models
            if models:
                self._draws = frozenset(m for c in models for m in c.draws)
            else:
                read = weight_draw_calls("", self.t.state.text or "")
                self._draws = frozenset().union(*drawing_methods(read).values())
        return self._draws

    def _wrapped_root(self, code: str) -> str | None:
        wrapped = self.t.state.wrapped
        return next((t for t in wrapped if code == t or code.startswith(t + ".")), None)

    def broadcast_after(self, body: Sequence[cst.BaseStatement]) -> list[cst.BaseStatement] | None:
        """`ddp_broadcast_module(T)` after a statement of this block that re-initialises T
        in place once an earlier statement of the block wrapped T. Every rank runs the
        block's statements that the wrap's own statement runs with, so every rank reaches
        the broadcast; also after a loop or condition holding the re-initialisation, unless
        it may leave the block early (return, break, continue, raise): then DP039. None when
        the block stays as it is."""
        if not self._reinits:
            return None
        owner = self.t
        wrapped: set[str] = set()
        out: list[cst.BaseStatement] = []
        changed = False
        for index, stmt in enumerate(body):
            out.append(stmt)
            late = [
                self._reinits.pop(c)
                for c in _runs(stmt)
                if isinstance(c, cst.Call) and self._peek(c) in wrapped
            ]
            if late and _falls_through(stmt):
                following = body[index + 1] if index + 1 < len(body) else None
                for target in dict.fromkeys(name for _, name in late):
                    if following is not None and any(
                        name == target
                        for c in _runs(following)
                        if (name := self._peek(c)) is not None
                    ):
                        continue  # broadcast once, after the last of a run of them
                    out.append(cst.parse_statement(f"ddp_broadcast_module({target})\n"))
                    owner.state.helpers.add("broadcast_module")
                    changed = True
                    owner.record(
                        late[0][0],
                        f"{target} re-initialised after its DDP wrap: rank 0's weights "
                        "broadcast after it (ddp_broadcast_module)",
                    )
            else:
                for original, target in late:
                    owner.warn(
                        original,
                        "DP039",
                        f"{owner.code(original.func)}(...) re-initialises {target} after its "
                        "wrap, in a statement that may leave the block (return, break, raise)",
                    )
            wrapped.update(_wrap_targets(stmt, owner.code))
        return out if changed else None

    def unplaced(self) -> None:
        """DP039 for a re-initialisation left in a function that wraps nothing of its
        target, of a name the module wraps elsewhere (`def reset(net): net.apply(init)`
        after main() wrapped `net`): no block holds both, so no broadcast was placed, and
        the function may run after the wrap. Asked once, after the module's blocks."""
        for original, target in self._reinits.values():
            function = self._function_of(original)
            if function is None or target in _wrap_targets_in(function, self.t.code):
                continue
            if self._called_before_wrap(function, target):
                continue
            self.t.warn(
                original,
                "DP039",
                f"{self.t.code(original.func)}(...) re-initialises {target} in "
                f"{function.name.value}(), which does not wrap it: no broadcast placed (call "
                f"ddp_broadcast_module({target}) after it where every rank runs it)",
            )
        self._reinits.clear()

    def _called_before_wrap(self, function: cst.FunctionDef, target: str) -> bool:
        """Every call of `function` (by its name, a method's through any receiver) is a
        statement of a function's own body that wraps `target` only in statements after it:
        the weights are drawn before the wrap, which broadcasts rank 0's (round 32,
        carpedm20/DiscoGAN-pytorch@ab3b7dc: `self.build_model()` in `__init__`, its
        `.apply(weights_init)`, then the DataParallel wraps: a false DP039 x4)."""
        module: cst.CSTNode | None = function
        while module is not None and not isinstance(module, cst.Module):
            module = self.t.parent(module)
        if module is None:
            return False
        name = function.name.value
        called = False
        for caller in walk(module):
            if not isinstance(caller, cst.FunctionDef) or not isinstance(
                caller.body, cst.IndentedBlock
            ):
                continue
            wraps = [
                i
                for i, stmt in enumerate(caller.body.body)
                if target in _wrap_targets_in(stmt, self.t.code)
            ]
            for index, stmt in enumerate(caller.body.body):
                for call in walk(stmt):
                    if isinstance(call, cst.Call) and _wrap_name(call.func) == name:
                        if not wraps or min(wraps) <= index:
                            return False
                        called = True
        return called

    def _function_of(self, node: cst.CSTNode) -> cst.FunctionDef | None:
        above = self.t.parent(node)
        while above is not None and not isinstance(above, cst.FunctionDef):
            above = self.t.parent(above)
        return above

    def _peek(self, node: cst.CSTNode) -> str | None:
        entry = self._reinits.get(node) if isinstance(node, cst.Call) else None
        return entry[1] if entry is not None else None


def _runs(stmt: cst.CSTNode) -> list[cst.CSTNode]:
    """The nodes `stmt` runs where it stands: none of a def or class statement (its body
    runs where it is called, a block of its own), nor of the defs and lambdas inside it."""
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return []
    return list(walk(stmt, skip_scopes=True))


def _only_switches(body: cst.CSTNode) -> bool:
    """Every call under `body` is a mode switch or a test of the module's class
    (_MODE_CALLS), and every attribute it sets is a mode (_MODE_ATTRIBUTES): no weight of
    the module is drawn or written."""
    for node in walk(body):
        if isinstance(node, cst.Call):
            func = node.func
            name = func.attr.value if isinstance(func, cst.Attribute) else ""
            name = func.value if isinstance(func, cst.Name) else name
            if name not in _MODE_CALLS:
                return False
        targets: list[cst.BaseExpression] = []
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
            targets = [node.target]
        for target in targets:
            if isinstance(target, cst.Attribute) and target.attr.value not in _MODE_ATTRIBUTES:
                return False
            if not isinstance(target, (cst.Name, cst.Attribute)):
                return False
    return True


#: Calls a function registering hooks may make beside the registration (tests, a list).
_HOOK_HELPERS = frozenset({"isinstance", "hasattr", "len", "str", "type", "append"})


def _only_hooks(function: cst.FunctionDef) -> bool:
    """`function` (given to `T.apply`) registers hooks on each module (`module.register_
    forward_hook(hook)`, the hook a function of its own) and does nothing else to it: no
    weight drawn or written (round 35, lonePatient/chinese-word2vec-pytorch@22c9b3f's
    `summary()`: `model.apply(register_hook)` was read as a re-initialisation, DP039)."""
    registers = False
    for node in walk(function.body, skip_scopes=True):
        if isinstance(node, cst.Call):
            name = name_of(node.func)
            if name.startswith("register_") and name.endswith("hook"):
                registers = True
            elif name not in _HOOK_HELPERS:
                return False
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            targets = node.targets if isinstance(node, cst.Assign) else [node]
            if any(not isinstance(t.target, cst.Name) for t in targets):
                return False
    return registers


def _wrap_targets(stmt: cst.CSTNode, code: Callable[[cst.CSTNode], str]) -> set[str]:
    """What the DistributedDataParallel wraps `stmt` runs (_runs) are assigned to."""
    return _assigned_wraps(_runs(stmt), code)


def _wrap_targets_in(node: cst.CSTNode, code: Callable[[cst.CSTNode], str]) -> set[str]:
    """What the wraps anywhere in `node` (a function, a statement; DataParallel, or as
    migrated) are assigned to."""
    return _assigned_wraps(list(walk(node)), code, ("DataParallel", *DDP_WRAPS))


def _assigned_wraps(
    nodes: list[cst.CSTNode],
    code: Callable[[cst.CSTNode], str],
    wraps: Collection[str] = DDP_WRAPS,
) -> set[str]:
    return {
        code(target.target)
        for node in nodes
        if isinstance(node, cst.Assign)
        and isinstance(node.value, cst.Call)
        and _wrap_name(node.value.func) in wraps
        for target in node.targets
    }


def _wrap_name(func: cst.BaseExpression) -> str:
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return func.value if isinstance(func, cst.Name) else ""


def _falls_through(node: cst.CSTNode, in_loop: bool = False) -> bool:
    """Every run of `node` goes on to the statement after it: nothing in it returns,
    raises, or breaks or continues a loop around it (a rank leaving early would miss the
    broadcast)."""
    if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        return True
    if isinstance(node, (cst.Return, cst.Raise)):
        return False
    if isinstance(node, (cst.Break, cst.Continue)):
        return in_loop
    loop = in_loop or isinstance(node, (cst.For, cst.While))
    return all(_falls_through(child, loop) for child in node.children)
