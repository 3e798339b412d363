"""A container of layers whose forward() reads only some of its entries, at literal indices
(or, for a ModuleDict of literal keys, at literal keys: `self.heads["a"]` beside an unread
"b", stop 61 s2).

`self.f = nn.ModuleList([PiecewiseLin(16) for _ in range(16)])` in `__init__`, and forward()
(with the methods it calls on `self`) reading only `self.f[0]` ... `self.f[7]`
(jnhwkim/ban-vqa@ef4cc36's counting.Counter, stop 42 v3-A): the other eight entries get no
gradient. DataParallel did not mind; DDP fails at the second step ("Expected to have
finished reduction in the prior iteration"). partial_forward.py takes a literal index as a
use of the whole container (right where the indices cover it); this module counts them.

Judged only where the length is known and every read is a literal index or a slice of
literals: the container is built once in `__init__`, by `ModuleList([...])` of a list
literal or of a comprehension over `range(<int literal>)` with no condition, by
`Sequential(a, b)` or `Sequential(*<such a list>)`, or by a helper function of the module
returning one (`clones(layer, 3)`, analysis/helper_layers.py; emadeldeen24/AttnSleep@6b4d266
reads `self.convs[1]` and `self.convs[2]` of three, issue 28 round 23), never grown
(`append`, `extend`, `insert`, `+=`), and every mention of `self.<name>` outside
`__init__`, in any method, is `self.<name>[<int literal>]` (negative ones counted from the
end) or `self.<name>[<literal slice>]` (`for conv in self.convs[1:]`: the entries the slice
takes). Anything else (a loop over it, a computed index, a call of the whole, handing it on)
leaves it to partial_forward.py.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import is_self_attribute
from dp2ddp.transforms.analysis.helper_layers import Functions, inlined

_GROW = frozenset({"append", "extend", "insert"})


def unread_entries(
    cls: ast.ClassDef,
    registered: Iterable[str],
    reached: Iterable[ast.AST],
    functions: Functions | None = None,
) -> list[tuple[str, str, int]]:
    """(attribute, how, line) for each registered container of known length some of whose
    entries no method reads: `reached` (forward() and what it calls) must read it;
    `functions`: the module's, for a container a helper builds."""
    methods = [n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    init = next((m for m in methods if m.name == "__init__"), None)
    if init is None or not init.args.args:
        return []
    lengths = _lengths(init, init.args.args[0].arg, set(registered), functions or {})
    found: list[tuple[str, str, int]] = []
    reached_ids = {id(n) for f in reached for n in ast_nodes.walk(f)}
    for attribute, (length, line) in lengths.items():
        keys: list[int | str] = list(range(length)) if isinstance(length, int) else list(length)
        read: set[int | str] = set()
        seen_in_reached = sliced = False
        for method in methods:
            if method is init or not method.args.args:
                continue
            indices = _literal_reads(method, method.args.args[0].arg, attribute)
            if indices is None:
                read = set(keys)  # another use: not judged here
                break
            for node, index in indices:
                if isinstance(index, slice):  # a ModuleDict's is no read of an entry
                    sliced = True
                    read.update(range(length)[index] if isinstance(length, int) else ())
                elif isinstance(index, int) and isinstance(length, int):
                    read.add(index % length if -length <= index < length else index)
                else:
                    read.add(index)
                seen_in_reached = seen_in_reached or id(node) in reached_ids
        unread = [k for k in keys if k not in read]
        if seen_in_reached and unread:
            used = ", ".join(repr(k) if isinstance(k, str) else str(k) for k in keys if k in read)
            what = "indices" if isinstance(length, int) else "keys"
            what += " (and slices)" if sliced else ""
            found.append(
                (
                    attribute,
                    f"reads {{attr}}, {len(keys)} entries built at line {line}, only at the "
                    f"literal {what} {used}: the others get no gradient",
                    line,
                )
            )
    return found


def _lengths(
    init: ast.FunctionDef | ast.AsyncFunctionDef,
    me: str,
    registered: set[str],
    functions: Functions,
) -> dict[str, tuple[int | tuple[str, ...], int]]:
    """attribute -> (length, line) of each registered ModuleList of known length, or (keys,
    line) of each ModuleDict of literal string keys, `__init__` builds once and never
    grows."""
    built: dict[str, tuple[int | tuple[str, ...], int] | None] = {}
    for node in ast_nodes.walk(init):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if is_self_attribute(target, me) and isinstance(target, ast.Attribute):
                    name = target.attr
                    length = _length(inlined(node.value, functions) or node.value)
                    first = name not in built
                    built[name] = (length, node.lineno) if first and length is not None else None
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Attribute):
            built[node.target.attr] = None
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _GROW
            and isinstance(node.func.value, ast.Attribute)
        ):
            built[node.func.value.attr] = None
    return {a: v for a, v in built.items() if v is not None and a in registered}


def _length(value: ast.expr) -> int | tuple[str, ...] | None:
    """The number of entries of `ModuleList([a, b])` / `ModuleList([X() for _ in range(n)])`,
    `Sequential(a, b)` / `Sequential(*[X() for _ in range(n)])`; the keys of
    `ModuleDict({"a": ..., "b": ...})` (string literals, no `**`)."""
    if not isinstance(value, ast.Call) or value.keywords:
        return None
    func = value.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if name == "Sequential" and value.args:
        if len(value.args) == 1 and isinstance(value.args[0], ast.Starred):
            return _listed(value.args[0].value)
        if not any(isinstance(a, (ast.Starred, ast.Dict)) for a in value.args):
            return len(value.args)  # an OrderedDict argument names its entries
        return None
    if len(value.args) != 1:
        return None
    arg = value.args[0]
    if name == "ModuleDict" and isinstance(arg, ast.Dict):
        keys = [k.value if isinstance(k, ast.Constant) else None for k in arg.keys]
        if keys and all(isinstance(k, str) for k in keys) and len(set(keys)) == len(keys):
            return tuple(k for k in keys if isinstance(k, str))
        return None
    return _listed(arg) if name == "ModuleList" else None


def _listed(arg: ast.expr) -> int | None:
    """The length of a list literal (no `*`) or of a comprehension over `range(<int>)`."""
    if isinstance(arg, ast.List) and not any(isinstance(e, ast.Starred) for e in arg.elts):
        return len(arg.elts)
    if isinstance(arg, (ast.ListComp, ast.GeneratorExp)) and len(arg.generators) == 1:
        gen = arg.generators[0]
        it = gen.iter
        if (
            not gen.ifs
            and isinstance(it, ast.Call)
            and isinstance(it.func, ast.Name)
            and it.func.id == "range"
            and len(it.args) == 1
            and isinstance(it.args[0], ast.Constant)
            and type(it.args[0].value) is int
        ):
            return it.args[0].value
    return None


def _literal_reads(
    method: ast.FunctionDef | ast.AsyncFunctionDef, me: str, attribute: str
) -> list[tuple[ast.AST, int | str | slice]] | None:
    """Each `self.<attribute>[<int literal>]` (`[<str literal>]`, `[<literal slice>]`) in
    `method` with its index; None where the method mentions `self.<attribute>` in any other
    way."""
    parents = {c: n for n in ast_nodes.walk(method) for c in ast.iter_child_nodes(n)}
    reads: list[tuple[ast.AST, int | str | slice]] = []
    for node in ast_nodes.walk(method):
        if not (
            isinstance(node, ast.Attribute)
            and node.attr == attribute
            and is_self_attribute(node, me)
        ):
            continue
        holder = parents.get(node)
        index = _index(holder.slice) if isinstance(holder, ast.Subscript) else None
        if not isinstance(holder, ast.Subscript) or holder.value is not node or index is None:
            return None
        reads.append((holder, index))
    return reads


def _index(index: ast.expr) -> int | str | slice | None:
    """A literal index, or a slice whose bounds and step are int literals (or left out)."""
    if not isinstance(index, ast.Slice):
        return _int(index)
    bounds = [None if b is None else _int(b) for b in (index.lower, index.upper, index.step)]
    given = [b for b in (index.lower, index.upper, index.step) if b is not None]
    if len([b for b in bounds if b is not None]) != len(given):
        return None
    if not all(isinstance(b, int) for b in bounds if b is not None) or bounds[2] == 0:
        return None
    return slice(*bounds)


def _int(index: ast.expr) -> int | str | None:
    if isinstance(index, ast.Constant) and isinstance(index.value, (int, str)):
        if not isinstance(index.value, bool):
            return index.value
    if (
        isinstance(index, ast.UnaryOp)
        and isinstance(index.op, ast.USub)
        and isinstance(index.operand, ast.Constant)
        and type(index.operand.value) is int
    ):
        return -index.operand.value
    return None
