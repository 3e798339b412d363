"""Resolve hard-coded CUDA devices to this process's `DEVICE`.

Under DataParallel everything lived on cuda:0 (the master GPU). Under DDP each process
owns GPU LOCAL_RANK, so `"cuda:0"`, `.cuda()`, `.cuda(0)`, `.to("cuda")`,
`torch.device("cuda:0")` and the `"cuda" if torch.cuda.is_available() else "cpu"` idiom
all become `DEVICE` (which is the CPU where CUDA is missing, so CPU fallback keeps working).
A device string stored in an attribute or item (a yacs config default) stays a string: see
leave_Assign.
"""

from __future__ import annotations

import re

import libcst as cst
import libcst.matchers as m

from dp2ddp.transforms._support.base import MigrationTransform
from dp2ddp.transforms._support.nodes import call_named, enclosing_function

_CUDA_STRING = re.compile(r"""^[rRuU]?(['"])cuda(:\d+)?\1$""")
_DEVICE_KEYWORDS = frozenset({"device", "map_location"})
_TORCH_DEVICE = frozenset({"torch.device"})
_SET_DEVICE = frozenset({"torch.cuda.set_device"})
_CUDA_DEVICE_CONTEXT = frozenset({"torch.cuda.device"})


def _is_cuda_string(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.SimpleString) and bool(_CUDA_STRING.match(node.value))


def _has_index(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.SimpleString) and ":" in node.value


def _choices(node: cst.BaseExpression) -> tuple[cst.BaseExpression, ...]:
    """The two strings of a `"cuda" if ... else "cpu"` choice; () for anything else."""
    return (node.body, node.orelse) if isinstance(node, cst.IfExp) else ()


def _device() -> cst.Name:
    return cst.Name("DEVICE")


class PinDevices(MigrationTransform):
    NAME = "devices"
    DESCRIPTION = "Resolve cuda devices to this process's DEVICE (cuda:LOCAL_RANK or the CPU)."
    TRIGGERS = ("cuda",)

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

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        func = original_node.func
        if self.matches(func, _TORCH_DEVICE):
            return self._torch_device(original_node, updated_node)
        if self.matches(func, _SET_DEVICE):
            if original_node.args and not m.matches(
                original_node.args[0].value, m.Name("LOCAL_RANK")
            ):
                self.record(original_node, "torch.cuda.set_device() now pins GPU LOCAL_RANK")
                return updated_node.with_changes(
                    args=[updated_node.args[0].with_changes(value=cst.Name("LOCAL_RANK"))]
                )
            return updated_node
        if self.matches(func, _CUDA_DEVICE_CONTEXT):
            self.warn(original_node, "DP018", self.code(original_node))
            return updated_node
        if isinstance(func, cst.Attribute) and isinstance(updated_node.func, cst.Attribute):
            if func.attr.value == "cuda" and not self.qualified_names(func) & {"torch.cuda"}:
                return self._dot_cuda(original_node, updated_node)
            if func.attr.value == "to":
                return self._dot_to(original_node, updated_node)
        return self._device_keywords(original_node, updated_node)

    def _torch_device(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        args = original.args
        if len(args) == 1 and args[0].keyword is None and self._is_device_value(args[0].value):
            self.record(original, f"{self.code(original)} -> DEVICE")
            return _device()
        if (
            len(args) == 2
            and _is_cuda_string(args[0].value)
            and isinstance(args[1].value, cst.Integer)
        ):
            self.record(original, f"{self.code(original)} -> DEVICE")
            return _device()
        return updated

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
                self.record(arg, f"{arg.keyword.value}={self.code(arg.value)} -> DEVICE")
                args[index] = args[index].with_changes(value=_device())
                changed = True
        return updated.with_changes(args=args) if changed else updated

    def leave_Assign(self, original_node: cst.Assign, updated_node: cst.Assign) -> cst.Assign:
        """`device = "cuda" if torch.cuda.is_available() else "cpu"` -> `device = DEVICE`.

        A string stored in an attribute or an item (`_C.MODEL.DEVICE = "cuda"`, a yacs
        config default; `args.device = ...`) stays a string: a config may accept strings
        only (yacs rejects a torch.device) or compare it (`cfg.DEVICE == "cuda"`). Without
        an index, `"cuda"` already names this process's GPU once ddp_setup() has set it
        (torch.cuda.set_device(LOCAL_RANK)), so it is left as it is; `"cuda:0"` would put
        every process on GPU 0 and becomes `str(DEVICE)`."""
        value = original_node.value
        if not self._is_device_value(value):
            return updated_node
        names = [t.target for t in original_node.targets]
        if all(isinstance(t, cst.Name) for t in names) and not self._string_elsewhere(
            original_node, {self.code(t) for t in names}
        ):
            self.record(original_node, f"{self.code(value)} -> DEVICE")
            return updated_node.with_changes(value=_device())
        # A name that holds another string on another path (`device = 'cpu'`, then
        # `device = 'cuda:0'` if CUDA is there: shenweichen/DeepCTR-Torch's examples) is a
        # string wherever it goes, and the code it is passed to may read it as one (the
        # library's `str(gpus[0]) in device`): a string it stays, as an attribute does.
        indexed = [n for n in (value, *_choices(value)) if _has_index(n)]
        if not indexed:
            return updated_node
        self.record(original_node, f"{self.code(value)} -> str(DEVICE), a string as it was")
        return updated_node.with_changes(value=call_named("str", cst.Arg(_device())))

    def _string_elsewhere(self, assign: cst.Assign, names: set[str]) -> bool:
        """One of `names` is also bound to a string that is not a device value
        (`device = "cpu"`) by a plain assignment of the same function (or module level)."""
        scope = enclosing_function(assign, self)
        root: cst.CSTNode = assign
        while (parent := self.parent(root)) is not None:
            root = parent
        for other in m.findall(scope if scope is not None else root, m.Assign()):
            assert isinstance(other, cst.Assign)
            if (
                other is assign
                or not isinstance(other.value, cst.SimpleString)
                or self._is_device_value(other.value)
                or enclosing_function(other, self) is not scope
            ):
                continue
            if any(self.code(t.target) in names for t in other.targets):
                return True
        return False
