"""Layers handed as arguments to a method whose output the caller drops (DP041).

kan-bayashi/PytorchWaveNetVocoder@d071ed3's WaveNet: forward() calls `output, skip =
self._residual_forward(output, ..., self.dil_sigmoid[l], ..., self.skip_1x1[l])` per
block and sums the skips; the last pass's residual is read by nothing, so the layers
the helper feeds only the residual from get no gradient and DDP fails at its second
step. The layer is followed into the callee (its parameter), and the callee's `return`
decides, as analysis/dropped_outputs.py does for a submodule's forward().
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Container, Iterable, Mapping

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import is_self_attribute
from dp2ddp.transforms.analysis.dropped_outputs import _unread, loop_variables
from dp2ddp.transforms.analysis.layer_names import CONTAINERS
from dp2ddp.transforms.analysis.name_paths import names as _names
from dp2ddp.transforms.analysis.name_paths import own_nodes as _own_nodes


def filled_containers(
    init: ast.FunctionDef | ast.AsyncFunctionDef,
    resolve: Callable[[ast.expr], tuple[str, bool] | None],
) -> set[str]:
    """The attributes `__init__` binds to an empty torch.nn container (`self.res =
    nn.ModuleList()`, filled later: `self.res += [nn.Conv1d(...)]`, WaveNet's): layers
    as much as a registered one, for `layers_as_arguments`."""
    if not init.args.args:
        return set()
    me = init.args.args[0].arg
    found = set()
    for node in ast_nodes.walk(init):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            resolved = resolve(node.value.func)
            if resolved is None or resolved[1] or not resolved[0].startswith("torch.nn."):
                continue
            if resolved[0].rsplit(".", 1)[-1] in CONTAINERS:
                found |= {
                    t.attr
                    for t in node.targets
                    if isinstance(t, ast.Attribute) and is_self_attribute(t, me)
                }
    return found


def filled_later(
    init: ast.FunctionDef | ast.AsyncFunctionDef,
    resolve: Callable[[ast.expr], tuple[str, bool] | None],
) -> set[str]:
    """Those of filled_containers that `__init__` fills (`self.x[key] = ...`, `self.x.append(
    ...)`, `extend`, `insert`, `update`, `add_module`, `self.x += [...]`): they hold layers
    as a registered one does (f90/Wave-U-Net-Pytorch@86c113d's `self.waveunets =
    nn.ModuleDict()`, one sub-network stored per instrument, forward() running one)."""
    empty = filled_containers(init, resolve)
    found: set[str] = set()
    for node in ast_nodes.walk(init):
        target: ast.expr | None = None
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            for each in node.targets if isinstance(node, ast.Assign) else [node.target]:
                target = each.value if isinstance(each, ast.Subscript) else each
                if isinstance(target, ast.Attribute) and target.attr in empty:
                    found.add(target.attr)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _FILLS
            and isinstance(node.func.value, ast.Attribute)
            and node.func.value.attr in empty
        ):
            found.add(node.func.value.attr)
    return found


_FILLS = frozenset({"append", "extend", "insert", "update", "add_module"})


def layers_as_arguments(
    reached: Iterable[ast.FunctionDef | ast.AsyncFunctionDef],
    methods: Mapping[str, ast.FunctionDef | ast.AsyncFunctionDef],
    registered: Container[str],
    functions: Mapping[str, ast.FunctionDef | ast.AsyncFunctionDef] | None = None,
) -> list[tuple[str, str, int]]:
    """(attribute, how, line) of each registered layer handed as an argument to a call on
    `self` (`output, skip = self._block(output, self.res[l], self.skip[l])`,
    kan-bayashi/PytorchWaveNetVocoder@d071ed3's WaveNet) whose result is unpacked into
    names not all read after it (the last pass's, in a loop), or subscripted with a
    constant, when the callee's output fed by that layer's parameter is dropped: the
    method's `return` tuple literal is read per element for the parameters feeding it
    (flow-insensitively, as `outputs` does); a layer whose parameter feeds only dropped
    elements gets no gradient. A callee that cannot be read that way (not a method of
    the class, no tuple literal of the unpacking's length, arguments it cannot match to
    parameters) leaves every layer handed to it possibly unused: the safe flag. A
    module-level function of `functions` given the layers (`h, _ = pair(self.a, self.b,
    x)`) is read the same way, with no `self` to skip."""
    functions = functions or {}
    found: list[tuple[str, str, int]] = []
    for function in reached:
        if not function.args.args:
            continue
        me = function.args.args[0].arg
        over = loop_variables(function, me)

        def layer_of(argument: ast.expr, me: str = me, over: dict[str, str] = over) -> str:
            node = argument.value if isinstance(argument, ast.Subscript) else argument
            if is_self_attribute(node, me):
                assert isinstance(node, ast.Attribute)
                return node.attr if node.attr in registered else ""
            if isinstance(argument, ast.Name) and over.get(argument.id, "") in registered:
                return over[argument.id]
            return ""

        def callee(call: ast.AST, me: str = me) -> str | None:
            if (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Name)
                and call.func.id in functions
            ):
                given = [*call.args, *(k.value for k in call.keywords)]
                return call.func.id if any(layer_of(a) for a in given) else None
            if not (
                isinstance(call, ast.Call)
                and is_self_attribute(call.func, me)
                and isinstance(call.func, ast.Attribute)
                and call.func.attr not in registered
            ):
                return None
            given = [*call.args, *(k.value for k in call.keywords)]
            return call.func.attr if any(layer_of(a) for a in given) else None

        for name, kept, arity, line, text, last_pass, call, _bound in _unread(function, callee):
            plain = isinstance(call.func, ast.Name)
            method = functions.get(name) if plain else methods.get(name)
            fed = _fed_by_parameters(method, call, arity, on_self=not plain)
            which = "the last pass's element" if last_pass else "element"
            dropped = [i for i in range(len(fed) if fed else max(arity, 1)) if i not in kept]
            called = f"{name}()" if plain else f"self.{name}()"
            what = f"drops {which} {', '.join(map(str, dropped))} of what {called}"
            for argument in [*call.args, *(k.value for k in call.keywords)]:
                attribute = layer_of(argument)
                if not attribute:
                    continue
                if fed is None:
                    how = (
                        f"{what} returns (`{text}`), which cannot be read: {{attr}}, "
                        f"handed to it, may feed only that"
                    )
                elif not any(argument in fed[i] for i in kept if i < len(fed)):
                    how = f"{what} returns (`{text}`), which {{attr}}, handed to it, alone feeds"
                else:
                    continue
                found.append((attribute, how, line))
    return found


def _fed_by_parameters(
    method: ast.FunctionDef | ast.AsyncFunctionDef | None,
    call: ast.Call,
    arity: int,
    on_self: bool = True,
) -> list[list[ast.expr]] | None:
    """Per element of the tuple literal every `return` of `method` gives, the arguments
    of `call` whose parameters feed it (through its local names, flow-insensitively);
    None when that is not known: no method, a `return` of no tuple literal (or of another
    length than the unpacking's `arity`), starred arguments, `*args`/`**kwargs`."""
    if method is None or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    if any(k.arg is None for k in call.keywords) or method.args.vararg or method.args.kwarg:
        return None
    returns = [n for n in _own_nodes(method) if isinstance(n, ast.Return)]
    if not returns or any(
        not isinstance(r.value, ast.Tuple) or any(isinstance(e, ast.Starred) for e in r.value.elts)
        for r in returns
    ):
        return None
    lengths = {len(r.value.elts) for r in returns if isinstance(r.value, ast.Tuple)}
    if len(lengths) != 1 or (arity and lengths != {arity}):
        return None
    statics = {"staticmethod"}
    static = any(isinstance(d, ast.Name) and d.id in statics for d in method.decorator_list)
    positional = [*method.args.posonlyargs, *method.args.args][0 if static or not on_self else 1 :]
    if len(call.args) > len(positional):
        return None
    given = {p.arg: a for p, a in zip(positional, call.args, strict=False)}
    names = {p.arg for p in (*positional, *method.args.kwonlyargs)}
    for keyword in call.keywords:
        if keyword.arg not in names:
            return None
        given[keyword.arg] = keyword.value
    # name -> the parameters it is computed from, to a fixed point
    flows: list[tuple[frozenset[str], frozenset[str]]] = []
    for node in _own_nodes(method):
        value: ast.AST | None = None
        bound: frozenset[str] = frozenset()
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            bound = frozenset(n for t in targets for n in _names(t))
            value = node.value
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            bound, value = _names(node.target), node.iter
        elif isinstance(node, ast.NamedExpr):
            bound, value = frozenset({node.target.id}), node.value
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            bound, value = _names(node.optional_vars), node.context_expr
        elif (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Attribute)
            and isinstance(node.value.func.value, ast.Name)
        ):  # `out.add_(res(h))`
            bound, value = frozenset({node.value.func.value.id}), node.value
        if value is not None:
            flows.append((bound, _names(value)))
    of_name: dict[str, set[str]] = {name: {name} for name in given}
    changed = True
    while changed:
        changed = False
        for bound, reads in flows:
            got = {p for name in reads for p in of_name.get(name, ())}
            for name in bound:
                have = of_name.setdefault(name, set())
                if not got <= have:
                    have |= got
                    changed = True
    elements: list[list[ast.expr]] = [[] for _ in range(lengths.pop())]
    for returned in returns:
        assert isinstance(returned.value, ast.Tuple)
        for index, value in enumerate(returned.value.elts):
            for name in _names(value):
                elements[index] += [given[p] for p in of_name.get(name, ()) if p in given]
    return elements


def read_arguments(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    call: ast.Call,
    me: str,
    unread: dict[str, tuple[str, int]],
) -> list[ast.expr] | None:
    """A call in forward() of the module-level `function`: the arguments it reads (to
    scan for uses of `self.x`), with each layer (`self.x`, `self.x[i]`) handed to a
    parameter the function never reads recorded in `unread` (attribute -> (how, line)):
    it runs nowhere (`def scaled(layers, x, s): return x * s`, `scaled(self.blocks, x,
    2.0)`). None where every parameter is read (the whole call is scanned as before)."""
    names = _unread_parameters(function, call)
    if not names:
        return None
    read: list[ast.expr] = []
    for argument in [*call.args, *(k.value for k in call.keywords)]:
        if id(argument) not in names:
            read.append(argument)
            continue
        inside = argument.value if isinstance(argument, ast.Subscript) else argument
        if is_self_attribute(inside, me):
            assert isinstance(inside, ast.Attribute)
            how = (
                f"hands {{attr}} to {function.name}(), which never reads its parameter "
                f"{names[id(argument)]}"
            )
            unread.setdefault(inside.attr, (how, call.lineno))
    return read


def _unread_parameters(
    function: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call
) -> dict[int, str]:
    """id of each argument of `call` bound to a parameter `function` never reads (not
    a `*args`/`**kwargs` catch-all, nor a starred argument: those are not matched),
    -> the parameter's name. `def run(layers, x): return x * 2`, `run(self.blocks, x)`:
    the layers run nowhere."""
    arguments = function.args
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return {}
    positional = [*arguments.posonlyargs, *arguments.args]
    bound: dict[str, ast.expr] = {}
    for parameter, argument in zip(positional, call.args, strict=False):
        bound[parameter.arg] = argument
    if len(call.args) > len(positional):
        return {}
    names = {p.arg for p in (*positional, *arguments.kwonlyargs)}
    for keyword in call.keywords:
        if keyword.arg in names:
            bound[keyword.arg] = keyword.value
    read = {
        n.id
        for n in ast_nodes.walk(function)
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store)
    }
    return {id(a): name for name, a in bound.items() if name not in read}
