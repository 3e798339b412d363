"""Resolve hard-coded CUDA devices to this process's `DEVICE`.

Under DataParallel everything lived on cuda:0 (the master GPU). Under DDP each process
owns GPU LOCAL_RANK, so `.cuda()`, `.cuda(0)`, `.to("cuda")`, `device="cuda:0"`,
`map_location="cuda:0"`, `torch.device("cuda:0")` and
`torch.device("cuda" if torch.cuda.is_available() else "cpu")` become `DEVICE` (which is the
CPU where CUDA is missing, so CPU fallback keeps working). A device string assigned to a
name, attribute or item stays a string, as the program may read it as one
(`'cuda' in device`): see leave_Assign.
"""

from __future__ import annotations

import re

import libcst as cst
import libcst.matchers as m

from dp2ddp.flow.bindings import bindings
from dp2ddp.flow.defuse import view
from dp2ddp.flow.origins import origins
from dp2ddp.transforms._support.base import MigrationState, MigrationTransform
from dp2ddp.transforms._support.names import SETUP_NAMES
from dp2ddp.transforms._support.nodes import (
    call_named,
    enclosing_class,
    enclosing_function,
    method_class,
    walk,
)
from dp2ddp.transforms._support.qualified import told_name
from dp2ddp.transforms.analysis.device_methods import local_device_classes

#: A line binding a name the setup binds to itself (`DEVICE = DEVICE`).
_SELF_BOUND = re.compile(
    r"^[ \t]*(" + "|".join(sorted(SETUP_NAMES)) + r")[ \t]*(?::[^=\n]*)?=[ \t]*\1[ \t]*(?:#.*)?$",
    re.MULTILINE,
)
_CUDA_STRING = re.compile(r"""^[rRuU]?(['"])cuda(:\d+)?\1$""")
_DEVICE_KEYWORDS = frozenset({"device", "map_location"})
_TORCH_DEVICE = frozenset({"torch.device"})
_SET_DEVICE = frozenset({"torch.cuda.set_device"})
_CUDA_DEVICE_CONTEXT = frozenset({"torch.cuda.device"})


def _own_tensor_device(call: cst.Call) -> bool:
    """`torch.cuda.device(x.get_device())`: the GPU a tensor of this process is on, under
    DDP this process's own (chenxin061/pdarts@b880e87 operations.py's padding, a false
    DP018 of stop 61's round), not an index pinned. (`x.device` may be a setting's.)"""
    if len(call.args) != 1 or call.args[0].keyword is not None:
        return False
    arg = call.args[0].value
    return (
        isinstance(arg, cst.Call)
        and not arg.args
        and isinstance(arg.func, cst.Attribute)
        and arg.func.attr.value == "get_device"
    )


def _is_cuda_string(node: cst.BaseExpression) -> bool:
    return (isinstance(node, cst.SimpleString) and bool(_CUDA_STRING.match(node.value))) or (
        _run_time_index(node)
    )


def _run_time_index(node: cst.BaseExpression) -> bool:
    """A CUDA device string whose index is computed at run time: `f"cuda:{gpu}"`,
    `"cuda:{}".format(gpu)`, `"cuda:%d" % gpu`, `"cuda:" + str(gpu)` (cure-lab/LTSF-Linear
    @0c11366's `torch.device('cuda:{}'.format(self.args.gpu))`: under DataParallel the master
    GPU, picked by a flag; left as it was, every DDP process would put its batches on that one
    GPU while its model sits on its own, and rank 1 crashes at the loss)."""
    if isinstance(node, cst.FormattedString):
        head = node.parts[0] if node.parts else None
        return (
            isinstance(head, cst.FormattedStringText)
            and head.value == "cuda:"
            and len(node.parts) == 2
            and isinstance(node.parts[1], cst.FormattedStringExpression)
        )
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "format"
        and isinstance(node.func.value, cst.SimpleString)
    ):
        return node.func.value.evaluated_value in ("cuda:{}", "cuda:{0}") and len(node.args) == 1
    if isinstance(node, cst.BinaryOperation) and isinstance(node.left, cst.SimpleString):
        text = node.left.evaluated_value
        if isinstance(node.operator, cst.Modulo):
            return text in ("cuda:%d", "cuda:%s", "cuda:%i")
        if isinstance(node.operator, cst.Add):
            return text == "cuda:"
    return False


def _has_index(node: cst.BaseExpression) -> bool:
    return (isinstance(node, cst.SimpleString) and ":" in node.value) or _run_time_index(node)


def _choices(node: cst.BaseExpression) -> tuple[cst.BaseExpression, ...]:
    """The two strings of a `"cuda" if ... else "cpu"` choice; () for anything else."""
    return (node.body, node.orelse) if isinstance(node, cst.IfExp) else ()


def _device() -> cst.Name:
    return cst.Name("DEVICE")


class PinDevices(MigrationTransform):
    NAME = "devices"
    DESCRIPTION = "Resolve cuda devices to this process's DEVICE (cuda:LOCAL_RANK or the CPU)."
    TRIGGERS = ("cuda",)

    @classmethod
    def triggered(cls, code: str, state: MigrationState) -> bool:
        """Also a module that binds a setup name to itself (`DEVICE = DEVICE` a function
        kept, leave_SimpleStatementLine's DP014): a second run still says it."""
        return super().triggered(code, state) or _SELF_BOUND.search(code) is not None

    def _is_cuda_choice(self, node: cst.BaseExpression) -> bool:
        """`"cuda" if <cond> else "cpu"` (either order)."""
        if not isinstance(node, cst.IfExp):
            return False
        cpu = m.SimpleString(value=m.MatchRegex(r"""^(['"])cpu\1$"""))
        return (_is_cuda_string(node.body) and m.matches(node.orelse, cpu)) or (
            _is_cuda_string(node.orelse) and m.matches(node.body, cpu)
        )

    def _is_device_value(self, node: cst.BaseExpression) -> bool:
        return _is_cuda_string(node) or self._is_cuda_choice(node)

    def visit_Module(self, node: cst.Module) -> None:
        self._own_device = local_device_classes(node)
        self._module = node

    # -- objects that move their own tensors (analysis/device_methods.py) -------------
    def _own_device_class(self, func: cst.BaseExpression) -> bool:
        """`func` (a constructor call's callee) names a class of the program with a
        `cuda()` of its own: one of this module, or of another module by its qualified
        name (a relative import's `.x.C` by its tail)."""
        others = self.state.hints.own_device
        if isinstance(func, cst.Name) and func.value in self._own_device:
            return True
        return bool(others) and told_name(self.qualified_names(func), others) is not None

    def _bindings(self, receiver: cst.BaseExpression, at: cst.CSTNode) -> list[cst.BaseExpression]:
        """Every value assigned to `receiver` where `at` can see it: a plain name in its
        function (or the module's top level), `self.attr` in the methods of its class;
        [] for anything else, or where a binding is not a plain assignment."""
        if isinstance(receiver, cst.Name):
            scope: cst.CSTNode = enclosing_function(at, self) or self._module
            skip = scope is self._module

            def target(t: cst.BaseExpression) -> bool:
                return isinstance(t, cst.Name) and t.value == receiver.value

        elif (
            isinstance(receiver, cst.Attribute)
            and isinstance(receiver.value, cst.Name)
            and receiver.value.value == "self"
        ):
            function = enclosing_function(at, self)
            owner = method_class(function, self) if function is not None else None
            if owner is None:
                return []
            scope, skip = owner, False
            attr = receiver.attr.value

            def target(t: cst.BaseExpression) -> bool:
                return (
                    isinstance(t, cst.Attribute)
                    and isinstance(t.value, cst.Name)
                    and t.value.value == "self"
                    and t.attr.value == attr
                )

        else:
            return []
        values: list[cst.BaseExpression] = []
        for node in walk(scope, skip_scopes=skip):
            if isinstance(node, cst.Assign) and any(target(t.target) for t in node.targets):
                if len(node.targets) != 1:
                    return []
                values.append(node.value)
            elif isinstance(node, (cst.AugAssign, cst.AnnAssign)) and target(node.target):
                return []
        return values

    def _module_function(self, receiver: cst.BaseExpression) -> bool:
        """`receiver` is a module: a name every binding of which is an `import m` /
        `import pkg.m as m` statement (an import statement binds a module, never an
        object). `utils.cuda(x)` then calls the program's own function named `cuda`
        ("to the GPU if there is one"), migrated in its module; read as Tensor.cuda(device)
        it became `utils.to(DEVICE)`, its argument dropped, and both ranks crashed
        (ternaus/robot-surgery-segmentation@1d18157 validation.py; class v1-A of stop 42).
        `from pkg import m` binds a module or an object: it counts where its qualified name
        is a module of the program that defines a top-level `cuda` (ProgramHints.own_device,
        analysis/device_methods.py), so an object whose cuda() is the tensor method (a model
        built at module level) is still moved."""
        if not isinstance(receiver, cst.Name):
            return False
        assert self._meta is not None, "asked outside the pass's metadata session"
        referents = bindings(self._meta.wrapper.module).referents(receiver)
        if not referents or not all(
            isinstance(r.node, (cst.Import, cst.ImportFrom)) for r in referents
        ):
            return False
        if all(isinstance(r.node, cst.Import) for r in referents):
            return True
        told = self.state.hints.own_device
        return bool(told) and told_name(self.qualified_names(receiver), told) is not None

    def _moves_itself(self, call: cst.Call) -> bool:
        """`x.cuda()` where `x` is proved an object of such a class: built by such a
        class's call in place, or every binding of the name or `self` attribute is one
        (`self.multinomial = AliasMethod(...)`, `A() if c else B()`); `self.cuda()` in such
        a class's method."""
        assert isinstance(call.func, cst.Attribute)
        receiver = call.func.value
        if isinstance(receiver, cst.Call):
            return self._builds_own(receiver)
        if isinstance(receiver, cst.Name) and receiver.value == "self":
            owner = enclosing_class(call, self)
            return owner is not None and owner.name.value in self._own_device
        values = self._bindings(receiver, call)
        if values and all(self._builds_own(v) for v in values):
            return True
        # where its bindings do not show it: every source the def-use view follows it to
        # (a parameter's call sites, a factory function's returns) builds such an object
        # (round 31, ldf921/video-representation@1d085ab: `def train(framework):
        # framework.cuda()`, and an if/elif arm taking the trainer from a factory)
        assert self._meta is not None, "asked outside the pass's metadata session"
        found = origins(view(self._meta.wrapper.module), receiver)
        return bool(found) and all(
            o.kind in ("call", "instance") and self._builds_own(o.node)  # type: ignore[arg-type]
            for o in found
        )

    def _builds_own(self, value: cst.BaseExpression) -> bool:
        """`value` builds such an object: a call of such a class, or a choice of two."""
        if isinstance(value, cst.IfExp):
            return self._builds_own(value.body) and self._builds_own(value.orelse)
        return isinstance(value, cst.Call) and self._own_device_class(value.func)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        func = original_node.func
        if self.matches(func, _TORCH_DEVICE):
            return self._torch_device(original_node, updated_node)
        if self.matches(func, _SET_DEVICE):
            if original_node.args and not m.matches(
                original_node.args[0].value, m.Name("LOCAL_RANK")
            ):
                self.record(original_node, "torch.cuda.set_device() now pins GPU LOCAL_RANK")
                if not self.state.wrapped and not isinstance(
                    original_node.args[0].value, cst.Integer
                ):  # a GPU the user picks (`--gpu 1`), in a file that wraps no model itself
                    self.warn(original_node, "DP018", self.code(original_node))
                return updated_node.with_changes(
                    args=[updated_node.args[0].with_changes(value=cst.Name("LOCAL_RANK"))]
                )
            return updated_node
        if self.matches(func, _CUDA_DEVICE_CONTEXT):
            if _own_tensor_device(original_node):
                self.record(original_node, f"{self.code(original_node)} kept: a tensor's device")
            else:
                self.warn(original_node, "DP018", self.code(original_node))
            return updated_node
        if isinstance(func, cst.Attribute) and isinstance(updated_node.func, cst.Attribute):
            if func.attr.value == "cuda" and not self.qualified_names(func) & {"torch.cuda"}:
                if self._module_function(func.value):
                    self.record(
                        original_node,
                        f"{self.code(original_node)} kept: a function of module "
                        f"{self.code(func.value)}, not a tensor's cuda()",
                    )
                    return updated_node
                if self._moves_itself(original_node):
                    self.record(
                        original_node,
                        f"{self.code(original_node)} kept: the object's own cuda() moves "
                        "its tensors (migrated to DEVICE there)",
                    )
                    return updated_node
                return self._dot_cuda(original_node, updated_node)
            if func.attr.value == "to":
                return self._dot_to(original_node, updated_node)
        return self._device_keywords(original_node, updated_node)

    def _torch_device(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        args = original.args
        if len(args) == 1 and args[0].keyword is None and self._is_device_value(args[0].value):
            self._said_run_time_index(args[0].value)
            self.record(original, f"{self.code(original)} -> DEVICE")
            return _device()
        if len(args) == 2 and _is_cuda_string(args[0].value) and args[1].keyword is None:
            if not isinstance(args[1].value, cst.Integer):
                self.warn(original, "DP018", self.code(original))
            self.record(original, f"{self.code(original)} -> DEVICE")
            return _device()
        return updated

    def _said_run_time_index(self, value: cst.BaseExpression) -> None:
        """DP018 for a device whose index the program computes (`f"cuda:{gpu}"`, also as
        one side of a `... if ... else "cpu"` choice): DEVICE replaces the GPU it picked."""
        for node in (value, *_choices(value)):
            if _run_time_index(node):
                self.warn(node, "DP018", self.code(node))

    def _dot_cuda(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        assert isinstance(updated.func, cst.Attribute)
        kept = [
            a for a in updated.args if a.keyword is not None and a.keyword.value == "non_blocking"
        ]
        dropped = [a for a in original.args if a.keyword is None or a.keyword.value == "device"]
        if dropped:
            self.warn(original, "DP018", f".cuda({self.code(dropped[0].value)})")
        self.record(original, f".cuda({'...' if original.args else ''}) -> .to(DEVICE)")
        args = [cst.Arg(_device()), *kept]
        if len(args) > 1:
            args[0] = args[0].with_changes(
                comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            )
            args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(func=updated.func.with_changes(attr=cst.Name("to")), args=args)

    def _dot_to(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        args = list(updated.args)
        for index, arg in enumerate(original.args):
            positional_device = index == 0 and arg.keyword is None
            keyword_device = arg.keyword is not None and arg.keyword.value == "device"
            if (positional_device or keyword_device) and self._is_device_value(arg.value):
                if _has_index(arg.value):
                    self.warn(arg, "DP018", self.code(arg.value))
                else:
                    self._said_run_time_index(arg.value)
                self.record(original, f".to({self.code(arg.value)}) -> .to(DEVICE)")
                args[index] = args[index].with_changes(value=_device())
        return updated.with_changes(args=args)

    def _device_keywords(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        args = list(updated.args)
        changed = False
        for index, arg in enumerate(original.args):
            if (
                arg.keyword is not None
                and arg.keyword.value in _DEVICE_KEYWORDS
                and self._is_device_value(arg.value)
            ):
                self._said_run_time_index(arg.value)
                self.record(arg, f"{arg.keyword.value}={self.code(arg.value)} -> DEVICE")
                args[index] = args[index].with_changes(value=_device())
                changed = True
        return updated.with_changes(args=args) if changed else updated

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine | cst.RemovalSentinel:
        """The program's own name for the device, spelt as the setup's (`DEVICE =
        torch.device("cuda:0" if ... else "cpu")`), became `DEVICE = DEVICE`: at module
        level the generated module's DEVICE is then not imported (the module binds the name
        itself: NameError at import), inside a function the name is local and read before
        it is bound (UnboundLocalError). Where that statement is the name's only binding in
        its scope, the statement goes and the name reads the setup's DEVICE, which is what
        the migration made its value; else the binding stays and DP014 says so (at module
        level process_group says it of every binding of a setup name)."""
        if len(updated_node.body) != 1 or len(original_node.body) != 1:
            return updated_node
        before, after = original_node.body[0], updated_node.body[0]
        if (
            not isinstance(before, cst.Assign | cst.AnnAssign)
            or not isinstance(after, cst.Assign | cst.AnnAssign)
            or before.value is None
            or after.value is None
        ):
            return updated_node
        targets = (
            [t.target for t in before.targets]
            if isinstance(before, cst.Assign)
            else [before.target]
        )
        name = targets[0] if len(targets) == 1 else None
        if not (
            isinstance(name, cst.Name)
            and name.value in SETUP_NAMES
            and m.matches(after.value, m.Name(name.value))
        ):
            return updated_node
        tree = view(self._module)
        if len(tree.definitions(name)) != 1 or m.matches(before.value, m.Name(name.value)):
            if enclosing_function(original_node, self) is not None:
                self.warn(
                    name,
                    "DP014",
                    f"{name.value} (a local binding that reads the setup's {name.value}: "
                    "read before it is bound)",
                )
            return updated_node
        self.record(
            original_node,
            f"{self.code(before.value)} was the program's own {name.value}: the statement "
            f"dropped, {name.value} is the setup's (the process's device)",
        )
        block = tree.parent(original_node)
        if isinstance(block, cst.IndentedBlock) and len(block.body) == 1:
            return updated_node.with_changes(body=[cst.Pass()])
        return cst.RemoveFromParent()

    def leave_Assign(self, original_node: cst.Assign, updated_node: cst.Assign) -> cst.Assign:
        """A device string assigned to anything stays a string; only its index changes.

        The program may read the value as a string (`'cuda' in device`,
        `device.startswith('cuda')`, `device == 'cuda'`, `device + ':0'`,
        `device.split(':')`, a yacs config that accepts strings only, a library's
        `str(gpus[0]) in device`): a torch.device breaks every one of those, mostly with a
        TypeError, and `==` silently. Proving that every use accepts a torch.device would
        mean following the name through the function and into every callee; a string is
        accepted wherever a device is (`.to()`, `torch.device()`, `map_location=`,
        `device=`), so keeping it one is simpler and right for every use. Without an index,
        `"cuda"` already names this process's GPU once ddp_setup() has set it
        (torch.cuda.set_device(LOCAL_RANK)), so `"cuda"` and `"cuda" if ... else "cpu"`
        are left as they are and keep comparing equal to `"cuda"`; `"cuda:0"` would put
        every process on GPU 0 and becomes `str(DEVICE)` (`"cuda:LOCAL_RANK"` or `"cpu"`).
        A torch.device stays a torch.device: `torch.device("cuda" if ...)` -> `DEVICE`
        (leave_Call)."""
        value = original_node.value
        if not self._is_device_value(value):
            return updated_node
        indexed = [n for n in (value, *_choices(value)) if _has_index(n)]
        if not indexed:
            return updated_node
        self._said_run_time_index(value)
        self.record(original_node, f"{self.code(value)} -> str(DEVICE), a string as it was")
        return updated_node.with_changes(value=call_named("str", cst.Arg(_device())))
