"""Why a wrapped model may leave parameters without a gradient (DP041), as model_wrap.py asks
at each wrap: the class that built the model, judged by analysis/partial_forward.py over the
program's nn.Module classes (ProgramFacts.models), or over the file's own for one file."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

import libcst as cst
from libcst.codemod.visitors import AddImportsVisitor

from dp2ddp.flow import code, view
from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import parse_python
from dp2ddp.transforms._support.names import DDP_CLASS, WRAP_TRAINABLE
from dp2ddp.transforms._support.nodes import unmoved
from dp2ddp.transforms.analysis.bare_modules import bare_reason, wrapped_call
from dp2ddp.transforms.analysis.built_by import (
    assigned_value,
    built_by,
    handed_builders,
    library_built,
    sequential_parts,
)
from dp2ddp.transforms.analysis.dropped_outputs import DroppedOutput, Outputs, starved
from dp2ddp.transforms.analysis.kept_outputs import CONDITIONAL, Kept, kept_outputs, model_calls
from dp2ddp.transforms.analysis.library_wraps import library_text
from dp2ddp.transforms.analysis.module_parts import GradToggle, grad_toggles
from dp2ddp.transforms.analysis.outside_reads import outside_reads, program_functions, said_reads
from dp2ddp.transforms.analysis.own_models import own_model_classes
from dp2ddp.transforms.analysis.patched_methods import patched_method
from dp2ddp.transforms.analysis.repeated_forwards import (
    BACKWARD_INSIDE,
    forwards_before_backward,
    handed_forwards,
    paramless_backwards,
    static_graph_text,
)
from dp2ddp.transforms.analysis.toggle_calls import called_only_before
from dp2ddp.transforms.analysis.toggled_models import untouched

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
        #: What their forward() returns (see ModelClass.outputs), by the same names.
        self._outputs: dict[str, Outputs | None] = {}
        #: How their forward() returns several outputs not mapped to layers ("" if not).
        self._several: dict[str, str] = {}
        #: Those that may hold no parameter (bare_modules.py); those the program never builds
        #: (class_reach.py): no candidate for an unknown class.
        self._bare: frozenset[str] = frozenset()
        self._unbuilt: frozenset[str] = frozenset()
        self._caller = False  # the last why() read the outputs: never DP096
        #: Once each: the module as `ast`; its statements that may switch gradients off;
        #: the toggles proved not to reach a wrap (see _untouched).
        self._tree: ast.Module | None = None
        self._toggles: tuple[GradToggle, ...] | None = None
        self._spared: frozenset[tuple[int, str]] | None = None
        #: Wrapped target -> its calls and what the program keeps of each, in `_kept_of`.
        self._kept: dict[str, list[tuple[cst.Call, Kept]]] = {}
        self._kept_of: cst.Module | None = None
        #: What the last why() asked for: the DDP keyword set True and the warning's code.
        self.flag, self.code = "find_unused_parameters", "DP041"

    def _model_classes(self) -> dict[str, str]:
        """The program's nn.Module classes (facts), or this file's own for a single file:
        name -> what may leave parameters without a gradient ("" when nothing)."""
        if self._classes is None:
            models = self.t.state.facts.models
            if not models and self.module is not None:
                source = self.t.state.text or self.module.code
                models = own_model_classes(source, self._ast())
            self._outputs = {c.name: c.outputs for c in models}
            self._several = {c.name: c.several for c in models}
            self._bare = frozenset(c.name for c in models if c.bare)
            self._unbuilt = frozenset(c.name for c in models if not c.built)
            self._classes = {c.name: c.partial for c in models}
        return self._classes

    def why(self, module: cst.BaseExpression | None, target: str | None = None) -> str:
        """Why the wrapped model may leave parameters without a gradient; "" if not known to.

        Its class is that of the call it was built by (`Net(...)`, also through a variable
        assigned from one in the same function). A class of the program is judged as
        analysis/partial_forward.py does; torch's and other libraries' are not; a model
        whose class is not known statically (built by a factory, a class picked by a
        computed name) is judged by the classes the program builds (analysis/class_reach.py):
        any such class counts; a function bound onto the object (patched_methods.py) too. A
        class whose forward() uses every layer can still leave some without a gradient where
        the program calls the wrapped model (`target`, as spelled) and drops an output only
        those layers feed (`out, stop = model(x)`, `stop` unread)."""
        self.flag, self.code, self._caller = "find_unused_parameters", "DP041", False
        if module is None:
            return ""
        at_line = lambda node: self.t.state.line_map(self.t._position(node)[0])  # noqa: E731
        why = self._class_why(module, target) or patched_method(self.module, module, at_line)
        if not why:
            return self._toggled(module)
        if self._caller:
            # Outputs a step leaves out: static_graph=True raises at the third step there;
            # find_unused_parameters=True runs, also for several calls before one backward
            # that leave out the same ones (v1-F, stop 41).
            return why
        if BACKWARD_INSIDE in why:
            self.code = "DP097"
            return (
                f"{why}: DDP averages the gradients of a backward that runs after forward() "
                "returns, none runs this right: with find_unused_parameters=True it raises "
                '"marked as ready twice", without it "initialize_buckets must NOT be called '
                "during autograd execution\", and static_graph=True runs with each rank's own "
                "gradients; return the loss from forward() and call backward() after the call"
            )
        at = self.t._position(module)[0]
        lines = forwards_before_backward(self._ast(), target, at) if target else ()
        where = ", ".join(str(self.t.state.line_map(line)) for line in lines)
        resolve = program_functions(self._ast(), self.t.context.filename or "")
        runs = f"`{target}` runs {len(lines)} forwards before one backward (lines {where})"
        runs = runs if lines else handed_forwards(self._ast(), target or "", resolve)
        if not runs:
            return self._read_outside(why, target)
        paramless = paramless_backwards(self._ast(), target or "", resolve, self.t.state.line_map)
        self.flag, self.code = (
            ("find_unused_parameters", "DP117") if paramless else ("static_graph", "DP096")
        )
        return static_graph_text(runs, why, paramless)

    def _read_outside(self, why: str, target: str | None) -> str:
        """DP048 where the loss also reads the model outside forward (outside_reads.py):
        find_unused_parameters=True marks a parameter forward leaves unreached, and the
        backward through that read marks it again."""
        resolve = program_functions(self._ast(), self.t.context.filename or "")
        reads = outside_reads(self._ast(), target, resolve) if target else []
        if not reads:
            return why
        self.code = "DP048"
        return said_reads(why, target or "", reads, self.t.state.line_map)

    def _toggled(self, module: cst.BaseExpression) -> str:
        """A statement of the program that may switch gradients off after the wrap (see
        module_parts.grad_toggles): in this module, one in another function than the wrap's
        own (a function may run at any time) or after the wrap's line in its own function or
        at module level when the wrap is there (module level runs at import, before a
        function that wraps), not in a constructor;
        in another module, one in a function (what runs at import runs before the wrap).
        A toggle proved not to reach the wrapped model's objects (analysis/toggled_models.py:
        it switches another model's parameters) is passed over; one not proved so counts."""
        line = self.t._position(module)[0]
        spared = self._untouched()
        at = self.t.state.line_map(line)
        in_function = any(
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.lineno <= line <= (node.end_lineno or node.lineno)
            for node in ast_nodes.walk(self._ast())
        )
        library = self.t.state.facts.role == "library"
        for toggle in self._own_toggles():
            if toggle.function == "__init__":
                continue
            if not toggle.function and in_function:
                continue  # module level: runs at import, before the function that wraps
            before = toggle.line < line
            if before and (not toggle.function or toggle.span[0] <= line <= toggle.span[1]):
                continue  # frozen before the wrap: DDP does not register it
            if library is False and called_only_before(self._ast(), toggle, line):
                continue  # its function runs only before the wrap (analysis/toggle_calls.py)
            where = f"line {self.t.state.line_map(toggle.line)}"
            if (at, where) not in spared:
                return self._toggle_text(toggle.text, where, (0, where) in spared)
        for text, where, early in self.t.state.facts.grad_toggles:
            if not early and (at, where) not in spared:
                return self._toggle_text(text, where, (0, where) in spared)
        return ""

    def wrap_call(self, call: cst.Call, module: cst.BaseExpression | None, spelled: str) -> str:
        """What the wrap `call` of `module` (`spelled` as migrated) calls: DDP_CLASS, or
        WRAP_TRAINABLE where a toggle may have switched off every parameter before it
        (freezing; X2, stop 34: DDP refuses a module none of whose parameters requires a
        gradient) or it may hold none (bare; a library's class, not read: DP102, why() set
        the code; round 37, a wavelet transform of buffers only crashed every rank), with
        the helper and a record; DDP_CLASS's import where it is that."""
        freezing = self.freezing(module) if module is not None else ""
        bare = self.bare(module) if module is not None and not freezing else ""
        if not bare and self.code == "DP102" and not model_zoo(self.t, module):
            bare = "a library's class, not read here"
        if not freezing and not bare:
            AddImportsVisitor.add_needed_import(self.t.context, "torch.nn.parallel", DDP_CLASS)
            return DDP_CLASS
        self.t.state.helpers.update({"wrap_trainable", "frozen_holder"})
        why = (
            f"{freezing} may switch off every parameter of {spelled} before the wrap"
            if freezing
            else f"{spelled} may hold no parameter ({bare})"
        )
        self.t.record(
            call,
            f"{why}: {WRAP_TRAINABLE}(...) wraps it in DistributedDataParallel only where some "
            "parameter requires a gradient (DDP refuses it otherwise)",
        )
        return WRAP_TRAINABLE

    def bare(self, module: cst.BaseExpression) -> str:
        """How the wrapped model may hold no parameter (analysis/bare_modules.py): a program
        class that stores no layer or parameter (a loss over pairs), a torch loss or an
        empty container filled later; "" otherwise (unknown, or a class with layers)."""
        call = wrapped_call(self.t, module)
        if call is None:
            return ""
        return bare_reason(self._class_names(call.func, self._model_classes()), self._bare, call)

    def freezing(self, module: cst.BaseExpression) -> str:
        """A toggle of the program that may switch off the wrapped model's parameters
        before the wrap (`for p in ema.parameters(): p.requires_grad = False`, an EMA or
        teacher copy, in a constructor, at module level, in main()), named "`text` (where)";
        "" when every toggle is proved not to reach it (analysis/toggled_models.py) or
        there is none. Where every parameter is off at the wrap, DistributedDataParallel's
        constructor raises on every rank ("DistributedDataParallel is not needed when a
        module doesn't have any parameter that requires a gradient"); whether every one is
        depends on the flow (a loop over a `zip` of two models' parameters, a flag), so the
        wrap asks at run time (ddp_wrap_trainable) and this only says where it must."""
        line = self.t._position(module)[0]
        at, spared = self.t.state.line_map(line), self._untouched()
        for toggle in self._own_toggles():
            where = f"line {self.t.state.line_map(toggle.line)}"
            if (at, where) not in spared:
                return f"`{toggle.text}` ({where})"
        for text, where, _ in self.t.state.facts.grad_toggles:
            if (at, where) not in spared:
                return f"`{text}` ({where})"
        return ""

    def _untouched(self) -> frozenset[tuple[int, str]]:
        """(wrap line, toggle) pairs proved apart, input lines: as the program told
        (ProgramFacts.untouched_toggles), or read from this file alone."""
        if self._spared is None:
            told = self.t.state.facts.untouched_toggles
            if told is None and not self._own_toggles():
                told = ()  # no toggle of its own to tie, none told
            if told is None:
                text = self.t.state.text or (self.module or cst.Module([])).code
                found = untouched([("", self._ast, False, text)], [""])[0][1]
                mapped = self.t.state.line_map
                told = tuple(
                    (mapped(wrap) if wrap else 0, f"line {mapped(int(where.split()[1]))}")
                    for wrap, where in found
                )
            self._spared = frozenset(told)
        return self._spared

    @staticmethod
    def _toggle_text(text: str, where: str, read: bool) -> str:
        """`read`: the objects the toggle switches were read (this wrap holds some of
        them); else which model it switches is not known, and every wrap is flagged."""
        which = (
            "the parameters it switches off"
            if read
            else "which model it switches is not read (every wrap is flagged); the parameters "
            "it switches off"
        )
        return (
            f"the program sets requires_grad to a value not proved True, `{text}` ({where}), "
            f"where it may run after the wrap: {which} get no gradient in those steps"
        )

    def _own_toggles(self) -> tuple[GradToggle, ...]:
        if self._toggles is None:
            self._toggles = grad_toggles(self._ast())
        return self._toggles

    def _ast(self) -> ast.Module:
        if self._tree is None:
            try:
                self._tree = parse_python(self.t.state.text or (self.module or cst.Module([])).code)
            except (SyntaxError, ValueError, RecursionError):
                self._tree = ast.Module(body=[], type_ignores=[])
        return self._tree

    def _class_why(self, module: cst.BaseExpression, target: str | None) -> str:
        """Why the wrapped model's class may leave parameters without a gradient (why())."""
        classes = self._model_classes()
        built = built_by(self.t, module)
        for part in sequential_parts(self.t, built):  # each child of an nn.Sequential
            if why := self._class_why(part, None):
                return why
        if built is not None and target is not None:
            for name in sorted(self._class_names(built, classes)):
                if self._outputs.get(name) is not None or self._several.get(name):
                    dropped = self._caller_drops(target, name)
                    if dropped:
                        self._caller = True
                        return dropped
        held = self._held_module(built, classes)
        if held is not None:
            return held
        picked = self._picked(built, classes)
        if picked is not None:
            return picked
        unread = self._library(built, classes)
        if unread:
            self.code = "DP102"
            self._caller = True
            return unread
        if not any(classes.values()):
            return self._unknown_class_drops(built, target, classes)
        branch = self._other_bindings(module, built, classes)
        if branch:
            return branch
        if built is not None:
            names = self._class_names(built, classes)
            for name in sorted(names):
                if name in classes:
                    return classes[name] or self._handed_in(module, classes)
            variable = isinstance(built, cst.Name) and (
                built.value[:1].islower() or assigned_value(self.t, built, built.value) is not None
            )
            if library_built(names, classes) and not variable:
                return ""
        first = next(
            (use for name, use in classes.items() if use and name not in self._unbuilt), None
        )
        if first is None:  # only classes the program never builds may leave a layer unused
            return self._unknown_class_drops(built, target, classes)
        return f"the model's class is not known statically, and {first}"

    def _unknown_class_drops(
        self, built: cst.BaseExpression | None, target: str | None, classes: dict[str, str]
    ) -> str:
        """A model whose class is not known statically (a factory's, `self.model, params =
        get_model(args)`) may be any class the program builds: where one of those returns
        several outputs and the program's calls of `target` leave one out, the layers
        feeding only that one get no gradient (ZJULearning/MaxSquareLoss@2fbc18f, round 37:
        the auxiliary head read only under `if args.multi`, no DP041, both ranks failed at
        step 2). "" for a class known (judged above), a library's, or no call leaving one."""
        if target is None:
            return ""
        if built is not None:
            names = self._class_names(built, classes)
            qualified = {n for n in names if "." in n} or names  # not the bare name beside
            if names & set(classes) or not self._of_program(qualified):
                return ""  # a class judged above, or a library's callable
        for name in sorted(classes):
            if name in self._unbuilt:
                continue
            if self._outputs.get(name) is None and not self._several.get(name):
                continue
            dropped = self._caller_drops(target, name)
            if dropped:
                self._caller = True
                short = name.rsplit(".", 1)[-1]
                return (
                    f"the model's class is not known statically (one the program builds "
                    f"is {short}), and {dropped}"
                )
        return ""

    def _handed_in(self, module: cst.BaseExpression, classes: dict[str, str]) -> str:
        """A partial class built as an argument of the wrapped model's construction, which
        keeps and runs it (`DataParallel(Diffusion(Unet()))`; round 33's diffusion class)."""
        owner, parts = handed_builders(self.t, module)
        found = sorted(n for p in parts for n in self._class_names(p, classes) if classes.get(n))
        return f"{classes[found[0]]} (handed to {owner}())" if found else ""

    def _other_bindings(
        self, module: cst.BaseExpression, built: cst.BaseExpression | None, classes: dict[str, str]
    ) -> str:
        """What a partial class of the program leaves without a gradient where it builds the
        wrapped name in another binding that reaches the wrap than the one `_built_by`
        follows (the last before it): `if arch == "a": model = A()` / `else: model = B()`
        judged B alone, so A's unused layer went unsaid (the audit of stop 43). Every
        reaching binding of the def-use view counts; "" where none is such a class."""
        if not isinstance(module, cst.Name) or self.module is None:
            return ""
        for definition in view(self.module).reaching(module):
            value = unmoved(definition.value) if definition.value is not None else None
            if not isinstance(value, cst.Call) or value.func is built:
                continue
            for name in sorted(self._class_names(value.func, classes)):
                if classes.get(name):
                    return classes[name]
        return ""

    def _held_module(self, built: cst.BaseExpression | None, classes: dict[str, str]) -> str | None:
        """`model_file.Net` where `model_file` is a variable holding a module (erfnet's
        `model_file = importlib.import_module(args.model)`, class E1): a module named by a
        program module (`model_file = net`) is read as `net.Net`; one imported by a name
        known only at run time is not read at all, so its forward() may leave layers
        without a gradient, and find_unused_parameters=True is what runs either way (for
        one forward per backward). None: not such a class (judged as before)."""
        if not isinstance(built, cst.Attribute) or not isinstance(built.value, cst.Name):
            return None
        holder = built.value.value
        value = assigned_value(self.t, built, holder)
        if isinstance(value, cst.Name):
            names = {f"{n}.{built.attr.value}" for n in self.t.qualified_names(value)}
            found = sorted(n for n in names if n in classes)
            return classes[found[0]] if found else None
        if not isinstance(value, cst.Call) or not {
            "importlib.import_module",
            "builtins.__import__",
        } & set(self.t.qualified_names(value.func)):
            return None
        line = self.t.state.line_map(self.t._position(value)[0])
        return (
            f"the model's class `{self.t.code(built)}` comes from a module imported by a "
            f"name known only at run time (`{holder} = {self.t.code(value)}`, line {line}): "
            "its forward() was not read, so whether it leaves a layer without a gradient "
            "is not known (DDP then fails at the next step); find_unused_parameters=True "
            "runs either way, more slowly"
        )

    def _picked(self, built: cst.BaseExpression | None, classes: dict[str, str]) -> str | None:
        """A builder picked by a name known only at run time: `getattr(base_model,
        'build_%s' % name)`, `vars(nets)[name]`, `nets.__dict__[name]` or a registry
        `BUILDERS[name]` (a dict of callables; jnhwkim/ban-vqa@ef4cc36's
        `getattr(base_model, constructor)(...)`, stop 42's v3-A). Any callable it picks from
        may build the model, so any class those builders can build counts: where one is of
        the program (a module of it, a registry holding its functions), the program's
        classes (a builder may assemble classes of other modules: ban-vqa's `build_ban`
        hands a `Counter` to a `BanModel`), the holder's own named first; where every one
        is a library's, DP102; where what it picks from is not read, the safe setting,
        said. None: not such a callee (judged as before)."""
        holder = self._holder(built)
        if holder is None or built is None or self.module is None:
            return None
        sources = [holder]
        root = holder.value if isinstance(holder, cst.Name) else None
        found = view(self.module).definitions(holder) if isinstance(holder, cst.Name) else []
        if root is not None and found and all(isinstance(d.value, cst.Dict) for d in found):
            sources = [  # a registry: what its entries hold (`**more`: not read)
                e.value if isinstance(e, cst.DictElement) else holder
                for d in found
                if isinstance(d.value, cst.Dict)
                for e in d.value.elements
            ]
        names = [set(self.t.qualified_names(source)) for source in sources]
        roots = self._program_roots()
        ours = {
            n for each in names for n in each if n.startswith(".") or n.split(".", 1)[0] in roots
        }
        picked = f"`{code(built, 60)}`"
        by = (
            "named by a string, not followed"
            if _named_literally(built)
            else "picked by a name known only at run time"
        )
        if ours:
            partial = sorted(
                (
                    not any(
                        c.startswith(f"{n}.") or c.startswith(f"{n.rsplit('.', 1)[0]}.")
                        for n in ours
                    ),
                    c,
                )
                for c, use in classes.items()
                if use and c not in self._unbuilt
            )
            if not partial:
                return ""
            return (
                f"the model is built by {picked}, a callable of the program's "
                f"`{code(holder, 60)}` {by}: any of its "
                f"builders may build it, and {classes[partial[0][1]]}"
            )
        library = [
            self._library(s, classes) if n else "" for s, n in zip(sources, names, strict=True)
        ]
        if library and all(library):
            self.code = "DP102"
            self._caller = True
            return library[0].replace("is built by", f"is built by {picked}, a callable of", 1)
        return (
            f"the model is built by {picked}, {by} from "
            f"`{code(holder, 60)}`, which is not read here: which class it builds, and whether "
            "its forward() leaves a layer without a gradient, is not known (DDP then fails "
            "at the next step); find_unused_parameters=True runs either way, more slowly"
        )

    @staticmethod
    def _holder(built: cst.BaseExpression | None) -> cst.BaseExpression | None:
        """What a callee picked by name picks from: `X` of `getattr(X, name)`, of `X[key]`,
        `X.__dict__[key]`, `vars(X)[key]`; None otherwise. A literal name counts too
        (`getattr(nets, "build_ban")`, `BUILDERS["ban"]`): the callee it names is not
        resolved through a string, so every builder of X stands for it (stop 43: read as a
        library's before, no DP041, both ranks failed at step 2)."""
        if isinstance(built, cst.Call):
            func, args = built.func, built.args
            if isinstance(func, cst.Name) and func.value == "getattr" and len(args) >= 2:
                return args[0].value
            return None
        if not isinstance(built, cst.Subscript):
            return None
        value = built.value
        if isinstance(value, cst.Attribute) and value.attr.value == "__dict__":
            return value.value
        if (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Name)
            and value.func.value == "vars"
            and value.args
        ):
            return value.args[0].value
        return value

    def _class_names(self, built: cst.BaseExpression, classes: dict[str, str]) -> set[str]:
        """The qualified names `built` may stand for; a bare name a star import binds
        (Transformer-TTS's `from network import *`, then `Model()`) also as the one class
        of the program of that name, if there is exactly one."""
        names = set(self.t.qualified_names(built))
        if isinstance(built, cst.Name):
            names.add(built.value)  # a star import's name resolves to nothing
        if isinstance(built, cst.Attribute):  # `Tagger.from_pretrained(...)`: a Tagger
            names |= self._class_names(built.value, classes) & set(classes)
        for name in list(names):
            if name not in classes:  # also re-exported: `models.DispResNet` (a package's)
                last = name.rsplit(".", 1)[-1]
                same = [c for c in classes if c.rsplit(".", 1)[-1] == last]
                if len({classes[c] for c in same}) == 1:  # one class, or a package's alias
                    names.add(same[0])
        return names

    def _caller_drops(self, target: str, cls: str) -> str:
        """How the program's calls of the wrapped model `target` (of class `cls`) may leave
        out an output that only some of its layers feed (analysis/kept_outputs.py): proved
        dropped, or not followed to the loss where some output is fed by layers of its own;
        "" where every call's outputs are proved read."""
        if self.module is None:
            return ""
        short = cls.rsplit(".", 1)[-1]
        outputs, several = self._outputs.get(cls), self._several.get(cls, "")
        for call, kept in self._kept_calls(target):
            if kept.whole:
                continue
            line = self.t.state.line_map(self.t._position(kept.node or call)[0])
            if outputs is None:
                return (
                    f"{short}.forward() returns several outputs ({several}), and the program "
                    f"{self._part(kept, target)} (line {line}): the layers that feed only "
                    "the others get no gradient in that step"
                )
            how = self._starved(kept, cls, short, target, len(outputs))
            if how:
                if not kept.unknown:
                    return f"the program {how.format(attr=target)} (line {line})"
                return (
                    f"the program {self._part(kept, target)} (line {line}): if a step "
                    f"{how.format(attr=target)}, those layers get no gradient in it"
                )
        return ""

    def _kept_calls(self, target: str) -> list[tuple[cst.Call, Kept]]:
        """Each gradient-enabled call of `target` with what the program keeps of it, once per
        module and target (_unknown_class_drops asks it of every class the program builds)."""
        assert self.module is not None
        if self._kept_of is not self.module:
            self._kept_of, self._kept = self.module, {}
        if target not in self._kept:
            flow = view(self.module)
            calls = model_calls(flow, target)
            self._kept[target] = [(c, kept_outputs(flow, c, self._program)) for c in calls]
        return self._kept[target]

    def _starved(self, kept: Kept, cls: str, short: str, target: str, length: int) -> str:
        """starved()'s text for what `kept` keeps; where which is not known, for the first
        element whose layers feed it alone."""
        choices = (
            [tuple(sorted(kept.kept))]
            if not kept.unknown
            else [
                tuple(j for j in range(length) if j != i)
                for i in range(length)
                if i not in kept.kept  # a known read is kept
            ]
        )
        for choice in choices:
            arity = kept.arity if not kept.unknown else 0
            spelled = code(kept.node, 60) if kept.node is not None and not kept.unknown else ""
            named = DroppedOutput(short, target, (cls,), choice, arity, 0, "", spelled, False)
            how = starved(named, self._outputs, self._outputs)
            if how is not None:
                return how.replace(" (``)", "")
        return ""

    @staticmethod
    def _part(kept: Kept, target: str) -> str:
        if kept.unknown == CONDITIONAL:
            return f"reads part of what `{target}` returns in some steps only ({kept.how})"
        if kept.unknown and isinstance(kept.node, cst.Subscript):
            return f"keeps only part of what `{target}` returns ({kept.how}, {kept.unknown})"
        if kept.unknown:
            return f"reads what `{target}` returns in a way not followed to the loss ({kept.how})"
        if isinstance(kept.node, cst.Subscript):
            return f"keeps only part of what `{target}` returns ({kept.how})"
        return f"keeps only part of what `{target}` returns ({kept.how})"

    def _program(self, call: cst.Call) -> bool | None:
        """Whether `call` runs code of the program that kept_outputs does not follow (True),
        a library's or a builtin (False: it reads what it is given whole), or not known
        (None: a method of an object whose class is not read)."""
        func: cst.BaseExpression = call.func
        if isinstance(func, cst.Call):
            return self._program(func)  # `nn.MSELoss()(out, y)`: what the inner call makes
        root = func
        while isinstance(root, cst.Attribute):
            root = root.value
        if not isinstance(root, cst.Name):
            return None
        flow = view(self.module) if self.module is not None else None
        if flow is None:
            return None
        found = flow.definitions(root)
        if not found:
            return False  # a builtin: sum(out), len(out)
        if all(d.kind == "import" for d in found):
            return self._of_program(self.t.qualified_names(func) or {root.value})
        if func is root and all(isinstance(d.value, cst.Call) for d in found):
            makers = [self._program(d.value) for d in found if isinstance(d.value, cst.Call)]
            if any(
                flow.class_called(d.value) is not None
                for d in found
                if isinstance(d.value, cst.Call)
            ):
                return True  # an object of a class of this module: its forward not followed
            return None if None in makers else any(makers)
        return None

    def _library(self, built: cst.BaseExpression | None, classes: dict[str, str]) -> str:
        """DP102's text for a model a library builds (analysis/library_wraps.py)."""
        if built is None or self.module is None:
            return ""
        return library_text(self.t, view(self.module), built, classes, self._program_roots())

    def _of_program(self, names: set[str]) -> bool:
        """One of the qualified `names` is the program's: a relative import's, or under a
        top-level name of the program's modules."""
        roots = self._program_roots()
        return any(n.startswith(".") or n.split(".", 1)[0] in roots for n in names)

    def _program_roots(self) -> set[str]:
        """The top-level names of the program's modules: those of its model classes, and
        of the functions and methods other modules summarise (a factory in utils/ beside
        models in graphs/: MaxSquareLoss's `utils.train_helper.get_model`)."""
        facts = self.t.state.facts
        named = (
            *self._model_classes(),
            *(name for name, _ in facts.backward_summaries),
            *self.t.state.hints.class_methods,
        )
        return {n.split(".", 1)[0] for n in named if "." in n and not n.startswith(".")}


def _named_literally(built: cst.BaseExpression) -> bool:
    """`getattr(X, "name")` or `X["key"]`: a pick whose name is written as a string."""
    if isinstance(built, cst.Call):
        args = built.args
        return len(args) >= 2 and isinstance(args[1].value, cst.SimpleString)
    return (
        isinstance(built, cst.Subscript)
        and len(built.slice) == 1
        and isinstance(built.slice[0].slice, cst.Index)
        and isinstance(built.slice[0].slice.value, cst.SimpleString)
    )


#: Libraries whose model classes hold parameters (model zoos): their wraps need no run-time
#: check that some parameter trains (wrap_call).
_MODEL_ZOOS = ("torchvision.models.", "transformers.", "timm.", "pytorch_pretrained_bert.",
               "pytorch_transformers.", "segmentation_models_pytorch.", "torch.hub.")  # fmt: skip


def model_zoo(t: MigrationTransform, module: cst.BaseExpression | None) -> bool:
    """`module` is built by a call of a model zoo's (`resnet18(...)`, `BertModel.
    from_pretrained(...)`), by its qualified name."""
    built = built_by(t, module) if module is not None else None
    return built is not None and any(
        name.startswith(_MODEL_ZOOS) for name in t.qualified_names(built)
    )
