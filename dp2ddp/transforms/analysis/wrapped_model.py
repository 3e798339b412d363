"""Why a wrapped model may leave parameters without a gradient (DP041), as model_wrap.py
asks at each wrap: the class that built the model, judged by analysis/partial_forward.py
over the program's nn.Module classes (ProgramFacts.models), or over the file's own for a
single file."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.nodes import walk
from dp2ddp.transforms.analysis.partial_forward import module_classes, partial_models

if TYPE_CHECKING:
    from dp2ddp.transforms._support.base import MigrationTransform


class UnusedParameters:
    """Asked at each wrap by the model-wrap pass `t`."""

    def __init__(self, t: MigrationTransform) -> None:
        self.t = t
        #: The module the pass runs on (set by its visit_Module).
        self.module: cst.Module | None = None
        #: The program's nn.Module classes (see _model_classes), once.
        self._classes: dict[str, str] | None = None

    def _model_classes(self) -> dict[str, str]:
        """The program's nn.Module classes (facts), or this file's own for a single file:
        name -> what may leave parameters without a gradient ("" when nothing)."""
        if self._classes is None:
            known = {c.name: c.partial for c in self.t.state.facts.models}
            if not known and self.module is not None:
                source = self.t.state.text or self.module.code
                own = module_classes("", "", source)
                uses = partial_models(own)
                known = {name: (uses[name].describe() if name in uses else "") for name in own}
            self._classes = known
        return self._classes

    def why(self, module: cst.BaseExpression | None) -> str:
        """Why the wrapped model may leave parameters without a gradient; "" if not known to.

        Its class is that of the call it was built by (`Net(...)`, also through a variable
        assigned from one in the same function). A class of the program is judged as
        analysis/partial_forward.py does; torch's and other libraries' are not; a model
        whose class is not known statically (built by a factory, a class picked by a
        computed name) is judged by the program's classes: any such class counts.
        """
        if module is None:
            return ""
        classes = self._model_classes()
        if not any(classes.values()):
            return ""
        built = self._built_by(module)
        if built is not None:
            names = self.t.qualified_names(built)
            for name in sorted(names):
                if name in classes:
                    return classes[name]
            variable = isinstance(built, cst.Name) and (
                built.value[:1].islower() or self._assigned_value(built, built.value) is not None
            )
            if any(not name.startswith(".") for name in names) and not variable:
                return ""  # a library's class (torch, torchvision...): not judged
        first = next(use for use in classes.values() if use)
        return f"the model's class is not known statically, and {first}"

    def _built_by(self, module: cst.BaseExpression) -> cst.BaseExpression | None:
        """The callee that built `module` (`Net` of `Net(...).cuda()`, also through a name
        assigned once from such a call earlier in the same function); None if unknown."""
        node: cst.BaseExpression = module
        for _ in range(3):
            while (
                isinstance(node, cst.Call)
                and isinstance(node.func, cst.Attribute)
                and node.func.attr.value in ("cuda", "to", "cpu", "float", "double", "half")
            ):
                node = node.func.value
            if isinstance(node, cst.Call):
                return node.func
            if not isinstance(node, cst.Name):
                return None
            value = self._assigned_value(module, node.value)
            if value is None:
                return None
            node = value
        return None

    def _assigned_value(self, at: cst.CSTNode, name: str) -> cst.BaseExpression | None:
        """The value last assigned to `name` before `at` in its function (or module)."""
        scope: cst.CSTNode | None = self.t.parent(at)
        while scope is not None and not isinstance(scope, (cst.FunctionDef, cst.Module)):
            scope = self.t.parent(scope)
        if scope is None:
            return None
        line = self.t._position(at)[0]
        found: cst.BaseExpression | None = None
        for node in walk(scope, skip_scopes=True):
            if (
                isinstance(node, cst.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0].target, cst.Name)
                and node.targets[0].target.value == name
                and self.t._position(node)[0] < line
            ):
                found = node.value
        return found
