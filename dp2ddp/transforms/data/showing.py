"""Which calls show their arguments, for the figure rule (data/evaluation.py): print and
friends, a progress bar's postfix, a file or CSV writer's write, and the program's own
printing functions and methods (its `progress_bar(i, n, msg)`, `io.cprint(...)`)."""

from __future__ import annotations

import libcst as cst

from dp2ddp.transforms._support.ast_nodes import import_table, parse_python
from dp2ddp.transforms._support.names import PRINTS, SHOW_METHODS, TORCH_SAVE, WRITE_METHODS
from dp2ddp.transforms._support.nodes import walk
from dp2ddp.transforms.analysis.printing import printing_functions
from dp2ddp.transforms.data.counters import LoopCounters
from dp2ddp.transforms.data.plan import PRINTER_NAME

#: Methods of a model (or its parts) that read or move it, not write what they are handed.
_NO_STATE = frozenset(
    {"train", "eval", "parameters", "named_parameters", "state_dict", "to", "cuda", "cpu",
     "zero_grad", "modules", "children", "buffers", "forward", "requires_grad_", "apply"}
)  # fmt: skip


class ShowingCalls(LoopCounters):
    """The calls that show a figure: where DP030 looks for a figure shown."""

    def _shown_as(self, node: cst.Call | cst.Return) -> str:
        """How DP030 says a figure leaves the loop's function: returned, saved (in a
        checkpoint's path or object: round 23, KiU-Net's `net{epoch}-{mean_loss}.pth`),
        written (a table of figures, numpy's savetxt) or printed."""
        if isinstance(node, cst.Return):
            return "returned"
        if self._writes_model(node):
            return f"written into the wrapped model's state (`{self.code(node.func)}`)"
        if self.matches(node.func, TORCH_SAVE):
            return "saved"
        return "written" if self.matches(node.func, frozenset({"numpy.savetxt"})) else "printed"

    def _prints(self, call: cst.Call) -> bool:
        """A call that shows its arguments: print and friends, a tqdm bar's postfix, a file
        or CSV writer's write, a function of this module that prints (a `progress_bar(i, n,
        msg)` helper) or a method of its classes that does (`io.cprint(outstr)`, whose class
        prints and writes a log file), or one of another module of the program that does."""
        if self.matches(call.func, PRINTS) or self.matches(call.func, TORCH_SAVE):
            return True  # a checkpoint shows a figure in its path or its object
        func = call.func
        functions, methods = self._printing_functions()
        if isinstance(func, cst.Attribute):
            name = func.attr.value
            if name in SHOW_METHODS or name in WRITE_METHODS or name in methods:
                return True
            # A method of another module's class that prints (`io.cprint`), not a library
            # module's function of the same name (`np.log(total)`); a function of another
            # module of the program called through it (`log_utils.log_values(total)`), by
            # its qualified name (a relative import's `.log_utils.log_values` by its tail).
            if name not in self.state.hints.printers:
                return False  # no printing function or method of the program is so named
            if not self._names_a_module(func.value):
                return True
            return any(
                q in self.state.hints.printers
                or q.startswith(".")
                and any(p.endswith(q) for p in self.state.hints.printers)
                for q in self.qualified_names(func)
            )
        if isinstance(func, cst.Name):
            if func.value in functions:
                return True
            # Imported from another module of the project: judged by what it does, or by
            # its name where the program does not tell (a module migrated alone). No name
            # at all: a star import's (`from utils import *`; GwcNet's `save_scalars` writing
            # TensorBoard scalars, class v3-B of stop 39), which the program tells bare.
            names = self.qualified_names(func)
            imported = not names or any(not n.startswith("builtins.") for n in names)
            return imported and (
                func.value in self.state.hints.printers or bool(PRINTER_NAME.search(func.value))
            )
        return False

    def _writes_model(self, call: cst.Call) -> bool:
        """A method called through a wrapped model's attributes (`model.module.feat_mean.
        copy_(...)`, `model.module.fds.update_running_stats(...)`): what it is handed
        becomes the model's state, which training reads and DDP copies from rank 0 (round
        38, YyzHarry/imbalanced-regression@a6fdc45's feature statistics gathered over the
        training loader at each epoch's end: each rank's half, rank 0's kept, unsaid)."""
        func = call.func
        if not isinstance(func, cst.Attribute) or func.attr.value in _NO_STATE:
            return False
        text = self.code(func.value)
        return any(text.startswith(f"{wrapped}.") for wrapped in self.state.wrapped)

    def _names_a_module(self, node: cst.BaseExpression) -> bool:
        """`np`, `torch.nn.functional`: a receiver whose root name an import binds."""
        while isinstance(node, cst.Attribute):
            node = node.value
        if not isinstance(node, cst.Name):
            return False
        if self._imported_names is None:
            found: set[str] = set()
            for statement in walk(self._module_node):
                if isinstance(statement, cst.Import):
                    for alias in statement.names:
                        bound: cst.BaseExpression = (
                            alias.asname.name if alias.asname else alias.name
                        )
                        while isinstance(bound, cst.Attribute):
                            bound = bound.value
                        if isinstance(bound, cst.Name):
                            found.add(bound.value)
                elif isinstance(statement, cst.ImportFrom) and not isinstance(
                    statement.names, cst.ImportStar
                ):
                    for alias in statement.names:
                        bound = alias.asname.name if alias.asname else alias.name
                        if isinstance(bound, cst.Name):
                            found.add(bound.value)
            self._imported_names = found
        return node.value in self._imported_names

    def _printing_functions(self) -> tuple[set[str], set[str]]:
        """Functions, and methods of classes, of this module that print or write a file or
        CSV row (analysis/printing.py): as the program model found them (ProgramHints.
        printing), or, in a file migrated alone, found here once."""
        if self._printers is None:
            found = self.state.hints.printing
            if found is None:
                tree = parse_python(self._module_node.code)
                found = printing_functions(tree, import_table(tree, "", False))
            self._printers = (
                {name for owner, name in found if not owner},
                {name for owner, name in found if owner},
            )
        return self._printers
