"""Find DataParallel by qualified name, and decide whether the file can be migrated."""

from __future__ import annotations

import libcst as cst

from dp2ddp.transforms._support.base import MigrationTransform
from dp2ddp.transforms._support.names import (
    DATA_PARALLEL_FUNCTION,
    DATAPARALLEL,
    DISTRIBUTED_DATA_PARALLEL,
    INIT_PROCESS_GROUP,
    SETUP_FUNCTION,
)

_CUSTOM_PARALLEL = frozenset(
    {
        "torch.nn.parallel.scatter",
        "torch.nn.parallel.gather",
        "torch.nn.parallel.replicate",
        "torch.nn.parallel.parallel_apply",
        "torch.nn.parallel.scatter_gather.scatter",
        "torch.nn.parallel.scatter_gather.gather",
    }
)


class DetectDataParallel(MigrationTransform):
    """Analysis only: where DataParallel is used, and whether a DDP path already exists."""

    NAME = "detect"
    DESCRIPTION = "Find DataParallel uses by qualified name; skip scripts that already use DDP."

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._function_depth = 0
        self._class_depth = 0
        self._first_use: cst.CSTNode | None = None
        self._ddp_use: cst.CSTNode | None = None

    def visit_Module(self, node: cst.Module) -> None:
        self.state.already_migrated = any(
            isinstance(stmt, cst.FunctionDef) and stmt.name.value == SETUP_FUNCTION
            for stmt in node.body
        )

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._function_depth += 1

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.FunctionDef:
        self._function_depth -= 1
        return updated_node

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        for base in node.bases:
            if self.matches(base.value, DATAPARALLEL):
                self.warn(base, "DP002", f"class {node.name.value} subclasses DataParallel")
            elif "DataParallel" in self.code(base.value) and not self.matches(
                base.value, DISTRIBUTED_DATA_PARALLEL
            ):
                self.warn(base, "DP002", f"class {node.name.value} extends a parallel wrapper")

    def visit_Call(self, node: cst.Call) -> None:
        if self.matches(node.func, DATAPARALLEL):
            self._use(node)
            if self._function_depth == 0:
                self.state.module_level_wrap = True
                program = self.state.program
                if program is not None and program.role == "library":
                    self.warn(node, "DP022")
        elif self.matches(node.func, DATA_PARALLEL_FUNCTION):
            self.warn(node, "DP002", "functional data_parallel() is not rewritten")
        elif self.matches(node.func, _CUSTOM_PARALLEL):
            self.warn(node, "DP002", f"{self.code(node.func)}() is DataParallel machinery")
        elif self.matches(node.func, DISTRIBUTED_DATA_PARALLEL | INIT_PROCESS_GROUP):
            self._ddp_use = self._ddp_use or node
        else:
            name = self.code(node.func).rsplit(".", 1)[-1]
            if "DataParallel" in name and name not in ("DataParallel", "DistributedDataParallel"):
                self.warn(node, "DP002", f"{name} is not torch's DataParallel")

    def visit_Name(self, node: cst.Name) -> None:
        parent = self.parent(node)
        if isinstance(parent, cst.Call) and parent.func is node:
            return
        if isinstance(parent, cst.Attribute) and parent.attr is node:
            return
        if node.value in ("DataParallel",) and self.matches(node, DATAPARALLEL):
            self._note_reference(node)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        parent = self.parent(node)
        if isinstance(parent, cst.Call) and parent.func is node:
            return
        if node.attr.value == "DataParallel" and self.matches(node, DATAPARALLEL):
            self._note_reference(node)

    def _note_reference(self, node: cst.BaseExpression) -> None:
        """A non-call reference: an isinstance check is migrated; other uses are flagged."""
        if _in_isinstance(node, self):
            self._use(node)
            return
        parent = self.parent(node)
        if isinstance(parent, cst.Arg) and isinstance(self.parent(parent), cst.ClassDef):
            return  # a subclass: DP002, reported by visit_ClassDef
        if isinstance(parent, (cst.ImportAlias, cst.Attribute)):
            return
        # `DP = nn.DataParallel`, `partial(nn.DataParallel, ...)`: calls through an alias
        # bound at run time cannot be followed statically.
        self.warn(node, "DP016", f"{self.code(node)} is referenced here, not called")

    def _use(self, node: cst.CSTNode) -> None:
        self.state.has_dataparallel = True
        self._first_use = self._first_use or node

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        if (
            self.state.has_dataparallel
            and self._ddp_use is not None
            and not self.state.already_migrated
            and self._first_use is not None
        ):
            self.warn(self._first_use, "DP003")
            self.state.skip = True
        # -- program mode (dp2ddp/program/): the DataParallel gate is the program's --------
        program = self.state.program
        if program is not None and not self.state.skip:
            self.state.has_dataparallel = program.has_dataparallel
        return updated_node


def _in_isinstance(node: cst.CSTNode, transform: MigrationTransform) -> bool:
    """True when `node` is (an element of a tuple that is) isinstance/issubclass's 2nd argument."""
    current: cst.CSTNode | None = node
    parent = transform.parent(node)
    if isinstance(parent, cst.Element):
        tup = transform.parent(parent)
        if isinstance(tup, cst.Tuple):
            current, parent = tup, transform.parent(tup)
    if not isinstance(parent, cst.Arg):
        return False
    call = transform.parent(parent)
    return (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Name)
        and call.func.value in ("isinstance", "issubclass")
        and len(call.args) == 2
        and call.args[1] is parent
        and current is parent.value
    )
