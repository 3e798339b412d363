"""Which methods of the program's nn.Module classes draw new weights in place.

`model.module.init_weight()` right after `model = nn.DataParallel(NMT(...))`
(JojoFisherman/Neural-Machine-Translation-with-Attention@bd34650's train.py, stop 61 v2-D):
NMT.init_weight calls its encoder's and decoder's, which draw with
`nn.init.xavier_uniform_` and `nn.init.orthogonal_`. Under DataParallel there was one
model; under DDP each rank draws its own after the wrap, which copied rank 0's weights only
when it was built, and the ranks train models that stay apart (rank 0 and rank 1 ended at
2.3048 and 2.5117 in the reduced case; verify: ranks apart after step 1), with no warning.
analysis/reinit.py broadcasts rank 0's weights after such a call, as it does after
`model.apply(init)`.

A method draws when its body calls a `torch.nn.init` filler that draws (`xavier_uniform_`,
`normal_`, ...) or a tensor's in-place random fill (`w.data.normal_()`) on something reached
from `self` (also through a local bound from it: `for name, p in
self.rnn.named_parameters()`, a generator of them), `apply(...)` or `reset_parameters()` on
`self` or a submodule, or calls a method of its class that draws, or calls on an attribute
of `self` a method that some model class of the program draws in (`self.encoder.init_weight()`;
by name, program-wide: a broadcast where none was needed costs one copy of the weights).
A tensor the method builds itself (`h = torch.zeros(n, self.hidden)`;
`nn.init.kaiming_normal_(h)`, a random hidden state) is no weight.
"""

from __future__ import annotations

import ast

from dp2ddp.transforms._support.ast_nodes import parse_python
from dp2ddp.transforms._support.names import INIT_DRAWS, INPLACE_RANDOM_FILLS

#: Module methods that re-draw the weights of what they are called on.
_REDRAW = frozenset({"apply", "reset_parameters"})

#: Per method: (it draws itself, methods of its class it calls on self, method names it
#: calls on attributes of self).
Calls = tuple[bool, frozenset[str], frozenset[str]]


def weight_draw_calls(import_name: str, source: str) -> dict[str, dict[str, Calls]]:
    """Per class defining forward() (`import_name.Class`, the bare name when `import_name`
    is empty), per method other than forward(): what drawing_methods resolves."""
    if "forward" not in source:
        return {}
    try:
        tree = parse_python(source)
    except (SyntaxError, ValueError, RecursionError):
        return {}
    prefix = f"{import_name}." if import_name else ""
    found: dict[str, dict[str, Calls]] = {}
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        methods = {
            n.name: n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        }
        if "forward" not in methods:
            continue
        found[prefix + node.name] = {
            name: _calls(method, set(methods))
            for name, method in methods.items()
            if name != "forward" and not name.startswith("__") and method.args.args
        }
    return found


def drawing_methods(read: dict[str, dict[str, Calls]]) -> dict[str, frozenset[str]]:
    """Per class of `read` (several modules' weight_draw_calls merged), its methods that
    draw weights, directly or through its own or a submodule's methods."""
    drawing = {c: {m for m, (direct, _, _) in ms.items() if direct} for c, ms in read.items()}
    while True:
        names = set().union(*drawing.values())
        grown = False
        for cls, methods in read.items():
            for name, (_, own, subs) in methods.items():
                if name not in drawing[cls] and (own & drawing[cls] or subs & names):
                    drawing[cls].add(name)
                    grown = True
        if not grown:
            return {c: frozenset(ms) for c, ms in drawing.items()}


def _calls(method: ast.FunctionDef | ast.AsyncFunctionDef, own: set[str]) -> Calls:
    me = method.args.args[0].arg
    bound = _from_self(method, me)
    direct = False
    mine: set[str] = set()
    subs: set[str] = set()
    for node in ast.walk(method):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        func, attr = node.func, node.func.attr
        if attr in INIT_DRAWS and _dotted(func.value).endswith("init"):
            direct = direct or bool(node.args) and _rooted(node.args[0], bound)
        elif attr in INPLACE_RANDOM_FILLS or attr in _REDRAW:
            direct = direct or _rooted(func.value, bound)
        elif isinstance(func.value, ast.Name) and func.value.id == me:
            if attr in own:
                mine.add(attr)
        elif _rooted(func.value, {me}):
            subs.add(attr)
    return direct, frozenset(mine), frozenset(subs)


def _from_self(method: ast.AST, me: str) -> set[str]:
    """`me` and the local names bound from something reached from it: a loop or
    comprehension target over one (`for name, p in self.rnn.named_parameters()`), an
    assignment of one, or of a generator or list of such targets (`ih = (p.data for _, p
    in self.rnn.named_parameters())`, then `for t in ih`)."""
    bound = {me}
    grown = True
    while grown:
        grown = False
        for node in ast.walk(method):
            pairs: list[tuple[ast.expr, ast.expr]] = []
            if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                pairs.append((node.target, node.iter))
            elif isinstance(node, ast.Assign):
                pairs.extend((t, node.value) for t in node.targets)
            for target, value in pairs:
                inner = value.args[0] if isinstance(value, ast.Call) and value.args else value
                if isinstance(value, (ast.GeneratorExp, ast.ListComp)):
                    generators = [g for g in value.generators if _rooted(g.iter, bound)]
                    taken = bool(generators) and _rooted(value.elt, bound | _targets(generators))
                else:
                    taken = _rooted(value, bound) or _rooted(inner, bound)
                new = {n.id for n in ast.walk(target) if isinstance(n, ast.Name)} - bound
                if taken and new:
                    bound |= new
                    grown = True
    return bound


def _targets(generators: list[ast.comprehension]) -> set[str]:
    return {n.id for g in generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}


def _rooted(node: ast.expr, names: set[str]) -> bool:
    """`node` is one of `names` or reached from one by attributes, items and calls."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return isinstance(node, ast.Name) and node.id in names


def _dotted(node: ast.expr) -> str:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))
