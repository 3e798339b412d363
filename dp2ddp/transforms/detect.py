"""Find DataParallel by qualified name, and decide whether the file can be migrated.

Never silent: every call that looks like a DataParallel wrap is either migrated or warned.
`torch.nn.DataParallel(m)` whose `torch` is bound only by a star import of a project module
(`from nets.builder import *`) is migrated: the file gets its own `import torch` (or
`from torch import nn`), so later passes resolve the name. A bare `DataParallel(m)` reached
only through such a star import may be the project's own class: DP016. Project-local
wrappers (subclasses, DataParallelWithCallback, DataParallelModel/Criterion, scatter
variants, patch_replication_callback) are named in DP002, except patch_replication_callback
on a model wrapped by torch's DataParallel in this file: model_wrap removes that call.
A class of the program whose name holds DataParallel but whose only base is `object` (a
device mover: VAC_CSLR's `GpuDataParallel`) is proved none: no DP002 at its call
(forwarding_classes.plain_classes, facts.Reexports.plain).

A module that defines or builds DataParallel machinery of its own (a subclass, a
DataParallelWithCallback call, scatter/gather) and wraps nothing with torch's DataParallel
is a wrapper library (a vendored sync_batchnorm/): left unchanged, also inside a program,
its DP002 warnings naming it. A module with only isinstance checks is not one: those test
the training model, which is DDP now, and follow it.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m
from libcst.codemod.visitors import AddImportsVisitor

from dp2ddp.transforms._support.base import MigrationTransform
from dp2ddp.transforms._support.forwarding_classes import plain_classes
from dp2ddp.transforms._support.names import (
    DATA_PARALLEL_FUNCTION,
    DATAPARALLEL,
    DISTRIBUTED_DATA_PARALLEL,
    INIT_PROCESS_GROUP,
    SETUP_FUNCTION,
)
from dp2ddp.transforms._support.nodes import (
    is_script_guard,
    replication_patch,
    scoped_name,
    wrap_target,
)
from dp2ddp.transforms.analysis.existing_ddp import way_out

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
#: DataParallel's steps written by hand, imported from the modules that define them
#: (facebookresearch/dlrm@090956e: `from torch.nn.parallel.replicate import replicate`, ...):
#: one process replicating the model on its GPUs, scattering the batch, gathering the
#: outputs. Under torchrun each process would do that over the whole batch alone.
_HAND_WRITTEN_PARALLEL = frozenset(
    {
        "torch.nn.parallel.replicate.replicate",
        "torch.nn.parallel.parallel_apply.parallel_apply",
        "torch.nn.parallel.scatter_gather.scatter_kwargs",
    }
)


#: Spellings of a DataParallel wrap whose first name no import of the file binds, and the
#: import that binds it: (module, name) for `from module import name`, (module, None) for
#: `import module`.
_STAR_SPELLINGS: dict[str, tuple[str, str | None]] = {
    "torch.nn.DataParallel": ("torch", None),
    "torch.nn.parallel.DataParallel": ("torch", None),
    "nn.DataParallel": ("torch", "nn"),
    "nn.parallel.DataParallel": ("torch", "nn"),
}
#: Distributed wrappers whose names contain DataParallel: nothing to migrate or flag.
_DISTRIBUTED_LOOKALIKES = frozenset(
    {"DistributedDataParallel", "FullyShardedDataParallel", "ShardedDataParallel"}
)


class DetectDataParallel(MigrationTransform):
    """Analysis only: where DataParallel is used, and whether a DDP path already exists."""

    NAME = "detect"
    DESCRIPTION = "Find DataParallel uses by qualified name; skip scripts that already use DDP."

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._function_depth = 0
        self._script_blocks = 0  # depth of `if __name__ == "__main__":` blocks
        self._class_depth = 0
        self._first_use: cst.CSTNode | None = None
        self._ddp_use: cst.CSTNode | None = None
        #: Modules star-imported at module level (`from m import *`).
        self._star_modules: list[str] = []
        #: Classes defined in this file that extend a parallel wrapper.
        self._local_wrappers: set[str] = set()
        #: What torch DataParallel wraps are assigned to (model_wrap migrates them, and
        #: removes patch_replication_callback on them).
        self._wrap_targets: set[tuple[int, str]] = set()
        #: This file calls torch's DataParallel (a training wrap).
        self._wraps_with_torch = False
        #: This file defines or builds DataParallel machinery of its own (DP002).
        self._own_machinery = False
        #: Classes named ...DataParallel... on `object` alone, this module's and the
        #: program's (read when first asked).
        self._plain: frozenset[str] | None = None

    def visit_Module(self, node: cst.Module) -> None:
        self.state.already_migrated = any(
            isinstance(stmt, cst.FunctionDef) and stmt.name.value == SETUP_FUNCTION
            for stmt in node.body
        )
        for stmt in node.body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.ImportFrom) and isinstance(
                        small.names, cst.ImportStar
                    ):
                        dotted = self.code(small.module) if small.module is not None else ""
                        self._star_modules.append("." * len(small.relative) + dotted)
            elif isinstance(stmt, cst.ClassDef) and self._forwarding(stmt):
                continue  # its calls are DataParallel's (forwarding_classes.py)
            elif isinstance(stmt, cst.ClassDef) and any(
                "DataParallel" in self.code(base.value)
                and not self.matches(base.value, DISTRIBUTED_DATA_PARALLEL)
                for base in stmt.bases
            ):
                self._local_wrappers.add(stmt.name.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._function_depth += 1

    def visit_If(self, node: cst.If) -> None:
        if is_script_guard(node.test):
            self._script_blocks += 1

    def leave_If(self, original_node: cst.If, updated_node: cst.If) -> cst.If:
        if is_script_guard(original_node.test):
            self._script_blocks -= 1
        return updated_node

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.FunctionDef:
        self._function_depth -= 1
        return updated_node

    def _forwarding(self, node: cst.ClassDef) -> bool:
        """A module-level class proved to be DataParallel plus attribute forwarding: no
        machinery of its own; model_wrap rebases it on DDP (forwarding_wrapper.py)."""
        return node.name.value in self.state.facts.reexports.forwarding and isinstance(
            self.parent(node), cst.Module
        )

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        if self._forwarding(node):
            return
        for base in node.bases:
            if self.matches(base.value, DATAPARALLEL):
                self._own_machinery = True
                self.warn(base, "DP002", f"class {node.name.value} subclasses DataParallel")
            elif "DataParallel" in self.code(base.value) and not self.matches(
                base.value, DISTRIBUTED_DATA_PARALLEL
            ):
                self._own_machinery = True
                self.warn(base, "DP002", f"class {node.name.value} extends a parallel wrapper")

    def visit_Call(self, node: cst.Call) -> None:
        if self.matches(node.func, DATAPARALLEL):
            self._use(node)
            self._note_wrap_target(node)
            self._wraps_with_torch = True
            if self._function_depth == 0:
                self.state.module_level_wrap = True
                program = self.state.program
                # a library's `__main__` block runs only when it is the script, not at import
                if program is not None and program.role == "library" and not self._script_blocks:
                    self.warn(node, "DP024")
        elif self.matches(node.func, DATA_PARALLEL_FUNCTION):
            self._own_machinery = True
            self.warn(node, "DP002", "functional data_parallel() is not rewritten")
        elif self.matches(node.func, _CUSTOM_PARALLEL):
            self._own_machinery = True
            self.warn(node, "DP002", f"{self.code(node.func)}() is DataParallel machinery")
        elif self.matches(node.func, _HAND_WRITTEN_PARALLEL):
            self._own_machinery = True
            self.warn(
                node,
                "DP002",
                f"{self.code(node.func)}() is data parallelism written by hand: under torchrun "
                "each process would run it over the whole batch alone; port it to one "
                "DistributedDataParallel model per process",
            )
        elif self.matches(node.func, DISTRIBUTED_DATA_PARALLEL | INIT_PROCESS_GROUP):
            self._ddp_use = self._ddp_use or node
        elif self._star_modules and not self.qualified_names(node.func):
            self._unbound_call(node)
        else:
            self._other_call(node)

    def _other_call(self, node: cst.Call) -> None:
        """Project-local wrappers: named in DP002, so the user knows what to port."""
        spelled = self.code(node.func)
        name = spelled.rsplit(".", 1)[-1]
        if name in self._local_wrappers:
            self._own_machinery = True
            self.warn(node, "DP002", f"{name} extends DataParallel and is not rewritten")
        elif replication_patch(node, self) is not None:
            model = self.code(node.args[0].value) if node.args else ""
            if scoped_name(node, model, self) in self._wrap_targets:
                return  # a wrap migrated here: model_wrap removes the call (and says so)
            self.warn(
                node,
                "DP002",
                f"{name}() patches DataParallel replication (sync-BN package); under DDP "
                "remove it and convert BatchNorm with --sync-batchnorm",
            )
        elif name == "DataParallel" and self.qualified_names(node.func):
            self._own_machinery = True
            self.warn(node, "DP002", f"{spelled} is not torch's DataParallel")
        elif (
            "DataParallel" in name
            and name not in _DISTRIBUTED_LOOKALIKES
            and not self._plain_class(node.func)
        ):
            self._own_machinery = True
            self.warn(node, "DP002", f"{name} is not torch's DataParallel")

    def _plain_class(self, func: cst.BaseExpression) -> bool:
        """`func` names a class of the program (this module's by its bare name) named
        ...DataParallel... whose only base is `object`: no wrap (GpuDataParallel, a device
        mover; forwarding_classes.plain_classes)."""
        if self._plain is None:
            own = plain_classes(self.state.text) if self.state.text else frozenset()
            self._plain = own | frozenset(self.state.facts.reexports.plain)
        if not self._plain:
            return False
        names = self.qualified_names(func)
        if isinstance(func, cst.Name) and func.value in self._plain:
            # a bare name: the module's own class, unless an import rebinds it
            return not names or func.value in names or bool(names & self._plain)
        return bool(names & self._plain)

    def _unbound_call(self, node: cst.Call) -> None:
        """A call whose name no import or assignment of this file binds, after a star import."""
        spelled = self.code(node.func)
        source = ", ".join(f"`from {module} import *`" for module in self._star_modules)
        binding = _STAR_SPELLINGS.get(spelled)
        if binding is not None:
            module, obj = binding
            AddImportsVisitor.add_needed_import(self.context, module, obj)
            self.record(
                node,
                f"imported {obj or module} from torch: {spelled} was bound only by {source}",
            )
            self._use(node)
            self._note_wrap_target(node)
            self._wraps_with_torch = True
            if self._function_depth == 0:
                self.state.module_level_wrap = True
        elif spelled.rsplit(".", 1)[-1] == "DataParallel":
            self.warn(
                node,
                "DP016",
                f"{spelled} comes from {source} and may not be torch's; import it from "
                "torch.nn to migrate it",
            )
        else:
            self._other_call(node)

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
        if isinstance(parent, (cst.ImportAlias, cst.Attribute, cst.ClassDef)):
            return  # an import, a longer name, a forwarding class's own name
        if isinstance(parent, cst.Arg) and _is_super(self.parent(parent)):
            return  # `super(DataParallel, self)` in a forwarding class: no use of it
        # `DP = nn.DataParallel`, `partial(nn.DataParallel, ...)`: calls through an alias
        # bound at run time cannot be followed statically.
        self.warn(node, "DP016", f"{self.code(node)} is referenced here, not called")

    def _note_wrap_target(self, call: cst.Call) -> None:
        target = wrap_target(call, self)
        if target is not None:
            self._wrap_targets.add(scoped_name(call, target, self))

    def _use(self, node: cst.CSTNode) -> None:
        self.state.has_dataparallel = True
        self._first_use = self._first_use or node

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        own_forwarding = any(
            isinstance(stmt, cst.ClassDef) and self._forwarding(stmt) for stmt in original_node.body
        )
        if self._own_machinery and not self._wraps_with_torch and not own_forwarding:
            # A wrapper library (vendored sync_batchnorm/replicate.py: `class
            # DataParallelWithCallback(DataParallel)`, `assert isinstance(dp, DataParallel)`):
            # its DataParallel references are about its own wrappers, which the project
            # still builds (DP002 at those calls). Flipping them to DDP made
            # patch_replication_callback reject the models it was written for, and a setup
            # block made a library an entry. Left as it is; DP002 above names it. Not so
            # a module defining a forwarding subclass its program wraps with: rebased.
            self.state.wrapper_library = True
            self.state.has_dataparallel = False
            return updated_node
        if (
            self.state.has_dataparallel
            and self._ddp_use is not None
            and not self.state.already_migrated
            and self._first_use is not None
        ):
            self.warn(
                self._first_use,
                "DP003",
                way_out(self, original_node, self._ddp_use),
            )
            self.state.skip = True
        # -- program mode (dp2ddp/program/): the DataParallel gate is the program's --------
        program = self.state.program
        if program is not None and not self.state.skip:
            self.state.has_dataparallel = program.has_dataparallel
        elif self.state.has_dataparallel and not self._wraps_with_torch and not self.state.skip:
            # Only `isinstance(model, DataParallel)` checks (torch's nn/utils/stateless.py,
            # a project's unwrap helper): nothing here runs DataParallel, so the file is no
            # DDP program of its own. A setup block made a helper module start a process
            # group on import; the checks alone follow the new wrapper.
            self.state.checks_only = True
        return updated_node


def _is_super(node: cst.CSTNode | None) -> bool:
    return isinstance(node, cst.Call) and m.matches(node.func, m.Name("super"))


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
