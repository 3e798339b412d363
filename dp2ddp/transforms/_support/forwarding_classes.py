"""A program's own DataParallel subclass that adds nothing but attribute forwarding (v3-A,
stop 43: f90/Wave-U-Net-Pytorch@86c113d's `model_utils.DataParallel`).

Proved from the class body alone: its one base is torch's DataParallel (its first name bound
by an import from torch), and every statement is a docstring, `pass`, a pass-through
`__init__` (its body one `super().__init__(...)` handing each of its parameters on once, as
written, nothing else) or a forwarding `__getattr__` (`try: return
super().__getattr__(name)` / `except AttributeError: return getattr(self.module, name)`)
or a method of its own that reads the wrapper only as `self.module` or `self.state_dict()`
(stop 59: bpowell122/tomodrgn@e19eae9's `unwrapped_state_dict()`, the keys' `module.`
stripped, which DDP's keys carry alike). No forward/scatter/gather/replicate override, no
state, no class attribute: such a class is DataParallel plus forwarding, and DDP needs the
forwarding just as much (`model.shapes`).

What follows from the proof: the class's wraps are torch's DataParallel to every pass (the
class's names are told as `torch.nn.DataParallel`, facts.Reexports.forwarding); the wrap
keeps the program's class as what it calls, and the class itself is rebased on
DistributedDataParallel with the pass-through `__init__` dropped (DDP's own takes the
keywords the migrated wrap passes). Any other subclass stays DP002 (detect.py).

The proof reads Python's `ast` alone, so the no-op path (program discovery, re-exports) asks
it without loading libcst; the edits are transforms/analysis/forwarding_wrapper.py's.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace

from dp2ddp.facts import ProgramFacts
from dp2ddp.transforms._support.names import DDP_CLASS

#: What the forwarding class is to every pass (its wraps are DataParallel's).
TORCH_DATAPARALLEL = "torch.nn.DataParallel"
#: What it is once model_wrap has rebased it.
DDP_QUALIFIED = "torch.nn.parallel.DistributedDataParallel"
#: A cheap gate before a parse: a module-level class with one base spelled ...DataParallel.
_SUBCLASS = re.compile(r"^class\s+\w+\s*\(\s*[\w.]*DataParallel\s*\)", re.MULTILINE)
_PREFIXES = ("", "nn.", "torch.nn.", "parallel.", "nn.parallel.", "torch.nn.parallel.")
#: Base as spelled -> what a forwarding class on it is taken for: on DataParallel, torch's
#: DataParallel (migrated); on DDP (what migrate made of one), DDP (a fixed point).
_BASES = {
    **{p + "DataParallel": TORCH_DATAPARALLEL for p in _PREFIXES},
    **{p + DDP_CLASS: DDP_QUALIFIED for p in _PREFIXES},
    "torch.nn.parallel.data_parallel.DataParallel": TORCH_DATAPARALLEL,
    "torch.nn.parallel.distributed.DistributedDataParallel": DDP_QUALIFIED,
}


def forwarding_classes(text: str) -> dict[str, str]:
    """The module-level classes of the module `text` proved forwarding-only (see above),
    each with what it is taken for (TORCH_DATAPARALLEL, or DDP_QUALIFIED on DDP)."""
    if _SUBCLASS.search(text) is None:
        return {}
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return {}
    torch_names = _torch_bound(tree)
    return {
        node.name: _BASES[ast.unparse(node.bases[0])]
        for node in tree.body
        if isinstance(node, ast.ClassDef) and forwarding_only(node, torch_names)
    }


#: A module-level class named ...DataParallel... with no base but `object` (`class
#: GpuDataParallel(object):`, VIPL-SLP/VAC_CSLR@71f3e03's device mover): no DataParallel.
_PLAIN = re.compile(
    r"^class[ \t]+(\w*DataParallel\w*)[ \t]*(?:\([ \t]*(?:object[ \t]*,?[ \t]*)?\))?[ \t]*:",
    re.MULTILINE,
)


def plain_classes(text: str) -> frozenset[str]:
    """The module-level classes of the module `text` whose names hold "DataParallel" but
    whose only base is `object` (or none): proved no DataParallel, whatever their name, so a
    call of one is no wrap to port (no DP002, detect.py; facts.Reexports.plain)."""
    if "DataParallel" not in text:
        return frozenset()
    names = {found.group(1) for found in _PLAIN.finditer(text)}
    # one also defined otherwise (`class X(DataParallel):` in another branch) is not proved
    return frozenset(
        name for name in names if len(re.findall(rf"^class[ \t]+{name}\b", text, re.MULTILINE)) == 1
    )


def forwarding_dataparallel(text: str) -> frozenset[str]:
    """The forwarding classes on torch's DataParallel (those migrate rebases)."""
    return frozenset(k for k, v in forwarding_classes(text).items() if v == TORCH_DATAPARALLEL)


def with_own_forwarding(facts: ProgramFacts, text: str) -> ProgramFacts:
    """`facts` with the module's own forwarding classes (by their bare names, as libcst
    names a module's own class) added to Reexports.forwarding."""
    own = forwarding_classes(text)
    if not own:
        return facts
    told = facts.reexports
    forwarding = {*told.forwarding, *(k for k, v in own.items() if v == TORCH_DATAPARALLEL)}
    names = {**told.table, **{k: v for k, v in own.items() if v == DDP_QUALIFIED}}
    return replace(
        facts,
        reexports=replace(
            told, names=tuple(sorted(names.items())), forwarding=tuple(sorted(forwarding))
        ),
    )


def _torch_bound(tree: ast.Module) -> frozenset[str]:
    """Names the module binds at module level by an import from torch."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "torch" or alias.name.startswith("torch."):
                    names.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if node.module == "torch" or node.module.startswith("torch."):
                names.update(alias.asname or alias.name for alias in node.names)
    return frozenset(names)


def forwarding_only(node: ast.ClassDef, torch_names: frozenset[str]) -> bool:
    """`node` subclasses torch's DataParallel and adds only a pass-through `__init__`, a
    forwarding `__getattr__` (module docstring) and methods that read only its `.module`
    and `state_dict()` (_reads_held_only)."""
    if len(node.bases) != 1 or node.keywords or node.decorator_list:
        return False
    base = ast.unparse(node.bases[0])
    if base not in _BASES or base.split(".")[0] not in torch_names:
        return False
    seen: set[str] = set()
    for statement in node.body:
        if _docstring_or_pass(statement):
            continue
        if not isinstance(statement, ast.FunctionDef) or statement.decorator_list:
            return False
        if statement.name in seen:
            return False
        seen.add(statement.name)
        body = [s for s in statement.body if not _docstring_or_pass(s)]
        if statement.name == "__init__":
            if not _passes_through(statement.args, body, node.name):
                return False
        elif statement.name == "__getattr__":
            if not _forwards(statement.args, body, node.name):
                return False
        elif not _reads_held_only(statement):
            return False
    return True


#: Names a method of the subclass may not take: what DataParallel, DDP or nn.Module call or
#: define (an override changes what the wrap does), and any dunder.
_WRAPPER_METHODS = frozenset(
    {"forward", "scatter", "gather", "replicate", "parallel_apply", "state_dict",
     "load_state_dict", "parameters", "named_parameters", "buffers", "named_buffers",
     "modules", "named_modules", "children", "named_children", "train", "eval", "to",
     "cuda", "cpu", "half", "float", "double", "apply", "zero_grad", "no_sync",
     "register_buffer", "register_parameter", "add_module", "extra_repr"}
)  # fmt: skip


def _reads_held_only(method: ast.FunctionDef) -> bool:
    """A method of its own (stop 59 s2, round 11 v3-E: bpowell122/tomodrgn@e19eae9's
    `unwrapped_state_dict()`, `self.state_dict()` with `module.` stripped from its keys)
    that reads the wrapper only as `self.module` or `self.state_dict(...)` and stores
    nothing on it: DDP holds the same `.module` and the same `module.`-prefixed keys, so
    the method means on the rebased class what it meant on DataParallel."""
    params = [a.arg for a in (*method.args.posonlyargs, *method.args.args)]
    if method.name.startswith("__") or method.name in _WRAPPER_METHODS or not params:
        return False
    me = params[0]
    for node in ast.walk(method):
        if isinstance(node, (ast.Global, ast.Nonlocal, ast.Lambda)) or (
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and node is not method
        ):
            return False
    held = {
        id(node.value)
        for node in ast.walk(method)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == me
        and isinstance(node.ctx, ast.Load)
        and node.attr in ("module", "state_dict")
    }
    return all(
        id(node) in held
        for node in ast.walk(method)
        if isinstance(node, ast.Name) and node.id == me
    )


def _docstring_or_pass(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Pass) or (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def _is_super(call: ast.expr, cls: str, self_name: str) -> bool:
    """`super()` or `super(<cls>, <self>)`."""
    if not (
        isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "super"
    ):
        return False
    if call.keywords:
        return False
    if not call.args:
        return True
    return [ast.unparse(a) for a in call.args] == [cls, self_name]


def _super_method(call: ast.expr, method: str, cls: str, self_name: str) -> ast.Call | None:
    """`call` when it is `super().<method>(...)`."""
    if (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == method
        and _is_super(call.func.value, cls, self_name)
    ):
        return call
    return None


def _passes_through(args: ast.arguments, body: list[ast.stmt], cls: str) -> bool:
    """The body is one `super().__init__(...)` handing on every parameter once, unchanged."""
    positional = [*args.posonlyargs, *args.args]
    if len(body) != 1 or not isinstance(body[0], ast.Expr) or not positional:
        return False
    call = _super_method(body[0].value, "__init__", cls, positional[0].arg)
    if call is None:
        return False
    wanted = {a.arg for a in (*positional[1:], *args.kwonlyargs)}
    given: list[str] = []
    for arg in call.args:
        value = arg.value if isinstance(arg, ast.Starred) else arg
        if not isinstance(value, ast.Name):
            return False
        given.append(value.id)
    for keyword in call.keywords:
        if not isinstance(keyword.value, ast.Name):
            return False
        if keyword.arg is not None and keyword.arg != keyword.value.id:
            return False
        given.append(keyword.value.id)
    if args.vararg is not None:
        wanted.add(args.vararg.arg)
    if args.kwarg is not None:
        wanted.add(args.kwarg.arg)
    if len(given) != len(set(given)) or set(given) != wanted:
        return False
    # positional ones in the order written: DataParallel's own order is the signature's
    named = [a.arg for a in positional[1:]]
    spelled = [v.id for v in call.args if isinstance(v, ast.Name)]
    return spelled == named[: len(spelled)]


def _forwards(args: ast.arguments, body: list[ast.stmt], cls: str) -> bool:
    """`try: return super().__getattr__(name)` / `except AttributeError: return
    getattr(self.module, name)`, and nothing else."""
    params = [a.arg for a in (*args.posonlyargs, *args.args)]
    if len(params) != 2 or args.vararg or args.kwarg or args.kwonlyargs or len(body) != 1:
        return False
    self_name, name = params
    attempt = body[0]
    if not isinstance(attempt, ast.Try) or attempt.orelse or attempt.finalbody:
        return False
    if len(attempt.body) != 1 or len(attempt.handlers) != 1:
        return False
    tried = attempt.body[0]
    if not isinstance(tried, ast.Return) or tried.value is None:
        return False
    call = _super_method(tried.value, "__getattr__", cls, self_name)
    if call is None or call.keywords or [ast.unparse(a) for a in call.args] != [name]:
        return False
    handler = attempt.handlers[0]
    if handler.type is None or ast.unparse(handler.type) != "AttributeError":
        return False
    if len(handler.body) != 1 or not isinstance(handler.body[0], ast.Return):
        return False
    fallback = handler.body[0].value
    return fallback is not None and ast.unparse(fallback) == (
        f"getattr({self_name}.module, {name})"
    )
