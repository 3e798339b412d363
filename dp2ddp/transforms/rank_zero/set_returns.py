"""The functions of a module that return a set of strings: a program fact (stop 53 s1).

set_orders.py makes the order a rank takes of a set of strings rank 0's, where its view of
the module proves the set. A program builds its label set in another module as often
(hertz-pj/BERT-BiLSTM-CRF-NER-pytorch@b1f70a7: ner.py:191 `label_list =
processor.get_labels(args)`, utils.py:62's method returns a set it fills with
`labels.add(tokens[1])` from the training file's lines; ner.py:199 numbers them by
`enumerate(label_list)`): the entry's view sees a call of another module. Read here with
`ast`, once per module (ProgramHints.set_returns): its top-level functions and its top-level
classes' methods ("f", "Class.f") whose every `return` is a set whose elements are proved
strings, as set_orders.py proves them (a string literal, an f-string, `str(...)`, a string
method's result, an item of one: `line.strip().split("\\t")[1]`), through the names the
function binds (every binding of a name a set, with what `S.add(x)` / `S.update(xs)` put in),
and through a call of another function or method of the module that returns one (to a
bounded depth). A value the function cannot type (`labels = pickle.load(f)`: whatever the
file holds) proves nothing: the function is not listed.

Stop 54 s3: an item of a csv reader's row is a string (`set(row[1] for row in
csv.reader(f))`); a function every return of which is a set it builds whose elements are
proved neither strings nor numbers (`set(json.loads(text))`) is "f~" (set_orders.py says
DP158 where its order is taken), one of numbers or tuples of them (`{int(x) for x in xs}`:
no process draws their hash) is not listed; a call of another module's function is asked of
`linked` (set_chains.py joins the modules' facts).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Final

from dp2ddp.transforms._support import ast_nodes

#: Builtins whose value is a set (hash order when iterated).
SET_CALLS: Final = frozenset({"set", "frozenset"})
#: Calls and methods whose value is a string (or a list of strings: `split`).
STR_CALLS: Final = frozenset({"str", "repr", "chr", "format"})
STR_METHODS: Final = frozenset(
    {
        "split", "rsplit", "splitlines", "strip", "lstrip", "rstrip", "lower", "upper",
        "replace", "decode", "encode", "format", "join", "title", "casefold", "readline",
        "readlines",
    }
)  # fmt: skip
#: Calls whose value is a number (a set of them iterates in one order in every process).
NUMBER_CALLS: Final = frozenset({"int", "float", "len", "range", "round", "abs", "ord"})
#: Library calls whose value is rows of strings (an item of a row is a string).
STR_ROWS: Final = frozenset({("csv", "reader")})
#: How many names or calls one question goes through.
_DEPTH: Final = 4
_SCOPES: Final = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
#: What the program facts know of a call of another module's function (set_chains.py):
#: "str" (it returns a set of strings), "maybe" ("f?"), "far" (one through more modules
#: than are followed, "f+"), "" (nothing).
Linked = Callable[[ast.expr], str]
#: The mark a name proved through a "maybe" / "far" link takes.
_MARKS: Final = {"maybe": "?", "far": "+"}


def set_returns(tree: ast.Module, linked: Linked | None = None) -> frozenset[str]:
    """ "f" / "Class.f" of the module's functions and methods returning a set of strings,
    "f?" of those that may, "f+" of those returning one another module's function returns
    through more modules than are followed (`linked`: what is known of another module's
    call; None: nothing, the module read alone)."""
    if linked is None and not _builds_any_set(ast_nodes.listed(tree)):
        return frozenset()
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    for statement in tree.body:
        members = statement.body if isinstance(statement, ast.ClassDef) else [statement]
        prefix = f"{statement.name}." if isinstance(statement, ast.ClassDef) else ""
        for member in members:
            if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                functions[prefix + member.name] = member
    reader = _Reader(functions, linked)
    proved = {name for name in functions if reader.returns_strings(name, 0)}
    marked = {name + reader.doubted[name] for name in proved if name in reader.doubted}
    proved -= set(reader.doubted)
    maybe = {
        f"{name}?"
        for name in functions
        if name not in proved and name not in reader.doubted and reader.maybe(name)
    }
    said = proved | set(reader.doubted) | {m[:-1] for m in maybe}
    untyped = {f"{n}~" for n in functions if n not in said and reader.untyped(n)}
    return frozenset(proved | maybe | marked | untyped)


def _builds_any_set(nodes: list[ast.AST]) -> bool:
    """Some node builds a set (one pass over the module's listing, no call per node)."""
    for node in nodes:
        kind = node.__class__
        if kind is ast.Set or kind is ast.SetComp:
            return True
        if kind is ast.Call:
            func = node.func  # type: ignore[attr-defined]
            if func.__class__ is ast.Name and func.id in SET_CALLS:
                return True
    return False


def _builds_set(node: ast.AST) -> bool:
    if isinstance(node, (ast.Set, ast.SetComp)):
        return True
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in SET_CALLS
    )


def _body(function: ast.AST) -> list[ast.AST]:
    """The nodes of a function's own body (not its nested functions' or classes')."""
    found: list[ast.AST] = []
    todo = list(ast.iter_child_nodes(function))
    while todo:
        node = todo.pop()
        found.append(node)
        if not isinstance(node, _SCOPES):
            todo.extend(ast.iter_child_nodes(node))
    return found


class _Function:
    """One function's bindings: name -> values bound (None: not a plain `name = value`),
    name -> what `.add(x)` / `.update(xs)` put in (("add", x) / ("update", xs)), returns."""

    def __init__(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.bound: dict[str, list[ast.expr | None]] = {}
        self.added: dict[str, list[tuple[str, ast.expr]]] = {}
        self.returns: list[ast.expr | None] = []
        self.fors: dict[str, list[ast.expr]] = {}
        arguments = node.args
        for arg in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]:
            self.bound.setdefault(arg.arg, []).append(None)
        for child in _body(node):
            self._read(child)

    def _read(self, node: ast.AST) -> None:
        if isinstance(node, ast.Return):
            self.returns.append(node.value)
        elif isinstance(node, ast.Assign):
            single = node.targets[0] if len(node.targets) == 1 else None
            for target in node.targets:
                for name in _names(target):
                    value = node.value if target is single and name is target else None
                    self.bound.setdefault(name.id, []).append(value)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr)):
            for name in _names(node.target):
                self.bound.setdefault(name.id, []).append(None)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            for name in _names(node.target):
                self.bound.setdefault(name.id, []).append(None)
                if name is node.target:
                    self.fors.setdefault(name.id, []).append(node.iter)
        elif isinstance(node, ast.comprehension):
            for name in _names(node.target):
                self.bound.setdefault(name.id, []).append(None)
                if name is node.target:
                    self.fors.setdefault(name.id, []).append(node.iter)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                for name in _names(item.optional_vars) if item.optional_vars else []:
                    self.bound.setdefault(name.id, []).append(None)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            func = node.func
            if func.attr in ("add", "update") and isinstance(func.value, ast.Name) and node.args:
                self.added.setdefault(func.value.id, []).append((func.attr, node.args[0]))


def _names(target: ast.AST) -> list[ast.Name]:
    return [n for n in ast.walk(target) if isinstance(n, ast.Name)]


class _Reader:
    """Answers, per function of one module, whether it returns a set of strings."""

    def __init__(
        self,
        functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef],
        linked: Linked | None = None,
    ) -> None:
        self.functions = functions
        self.linked = linked
        self.read: dict[str, _Function] = {}
        self.answers: dict[str, bool] = {}
        #: functions proved through another module's "maybe" / "far" one -> "?" / "+"
        self.doubted: dict[str, str] = {}
        self.doubt = ""  # the mark of the function being proved

    def returns_strings(self, name: str, depth: int) -> bool:
        if name in self.answers:
            self._doubt(self.doubted.get(name, "") if self.answers[name] else "")
            return self.answers[name]
        if depth > _DEPTH:
            return False
        self.answers[name] = False  # a recursion proves nothing
        function = self._function(name)
        owner = name.rpartition(".")[0]
        outer, self.doubt = self.doubt, ""
        answer = bool(function.returns) and all(
            value is not None and self._set(function, owner, value, depth)
            for value in function.returns
        )
        self.answers[name] = answer
        if answer and self.doubt:
            self.doubted[name] = self.doubt
        mark, self.doubt = self.doubt if answer else "", outer
        self._doubt(mark)
        return answer

    def _doubt(self, mark: str) -> None:
        """The function being proved goes through a "maybe" ("?", which wins) or a "far"
        ("+") link."""
        if mark and self.doubt != "?":
            self.doubt = mark

    def maybe(self, name: str) -> bool:
        """`name` returns a set of strings on some of its paths, and on the others a value
        a library call gives that nothing here types (`labels = pickle.load(f)`): "f?"."""
        function = self._function(name)
        owner = name.rpartition(".")[0]
        some = False
        for value in function.returns:
            if value is not None and self._set(function, owner, value, 0):
                some = True
                continue
            if (
                not isinstance(value, ast.Name)
                or value.id in function.added
                and not all(
                    _string(function, x, 0) if kind == "add" else _strings(function, x, 0)
                    for kind, x in function.added[value.id]
                )
            ):
                return False
            for binding in function.bound.get(value.id, [None]):
                if binding is None:
                    return False
                if self._set(function, owner, binding, 1):
                    some = True
                elif not isinstance(binding, ast.Call) or _builds_set(binding):
                    return False
                elif self._called(binding.func, owner) is not None:
                    return False  # the module's own function: proved or not, not untyped
        return some

    def untyped(self, name: str) -> bool:
        """Every return of `name` is a set it builds (a display, a comprehension, `set(...)`,
        a name every binding of which is one) whose elements are proved neither strings
        (that is "f") nor numbers, whose hash no process draws (`set(json.load(f))`): "f~"
        (stop 54 s3)."""
        function = self._function(name)
        elements: list[ast.expr] = []
        for value in function.returns:
            built = _built(function, value, 0) if value is not None else None
            if built is None:
                return False
            elements += built
        return bool(function.returns) and not all(_number(function, e, 0) for e in elements)

    def _function(self, name: str) -> _Function:
        if name not in self.read:
            self.read[name] = _Function(self.functions[name])
        return self.read[name]

    def _set(self, function: _Function, owner: str, value: ast.expr, depth: int) -> bool:
        """`value` is a set whose elements are proved strings."""
        if depth > _DEPTH:
            return False
        if isinstance(value, ast.Set):
            return all(_string(function, e, depth) for e in value.elts)
        if isinstance(value, ast.SetComp):
            return _string(function, value.elt, depth)
        if isinstance(value, ast.Call):
            func = value.func
            if (
                isinstance(func, ast.Name)
                and func.id in SET_CALLS
                and func.id not in function.bound
            ):
                return not value.args or _strings(function, value.args[0], depth)
            called = self._called(func, owner)
            if called is not None:
                return self.returns_strings(called, depth + 1)
            kind = self.linked(func) if self.linked is not None else ""
            self._doubt(_MARKS.get(kind, ""))
            return bool(kind)  # another module's function (set_chains.py)
        if not isinstance(value, ast.Name):
            return False
        bindings = function.bound.get(value.id, [])
        if not bindings or any(b is None for b in bindings):
            return False
        if not all(self._set(function, owner, b, depth + 1) for b in bindings if b is not None):
            return False
        return all(
            _string(function, x, depth) if kind == "add" else _strings(function, x, depth)
            for kind, x in function.added.get(value.id, [])
        )

    def _called(self, func: ast.expr, owner: str) -> str | None:
        """The function of this module a call runs: `f(...)`, `C().f(...)` of a class of
        the module, or `self.f(...)` in a method."""
        if isinstance(func, ast.Name) and func.id in self.functions:
            return func.id
        if not isinstance(func, ast.Attribute):
            return None
        made = func.value
        if isinstance(made, ast.Call) and isinstance(made.func, ast.Name):
            method = f"{made.func.id}.{func.attr}"
            return method if method in self.functions else None
        if (
            owner
            and isinstance(func.value, ast.Name)
            and func.value.id == "self"
            and f"{owner}.{func.attr}" in self.functions
        ):
            return f"{owner}.{func.attr}"
        return None


def _built(function: _Function, value: ast.expr, depth: int) -> list[ast.expr] | None:
    """The elements of the set `value` is (an iterable whose elements they are, as
    `*iterable`), None where it is not proved a set built here."""
    if depth > _DEPTH:
        return None
    if isinstance(value, ast.Set):
        return list(value.elts)
    if isinstance(value, ast.SetComp):
        return [value.elt]
    if isinstance(value, ast.Call):
        func = value.func
        if not isinstance(func, ast.Name) or func.id not in SET_CALLS or func.id in function.bound:
            return None
        return _members(value.args[0]) if value.args else []
    if not isinstance(value, ast.Name):
        return None
    bindings = function.bound.get(value.id, [])
    if not bindings or any(b is None for b in bindings):
        return None
    found: list[ast.expr] = []
    for binding in bindings:
        inner = _built(function, binding, depth + 1) if binding is not None else None
        if inner is None:
            return None
        found += inner
    for kind, x in function.added.get(value.id, []):
        found += [x] if kind == "add" else _members(x)
    return found


def _members(iterable: ast.expr) -> list[ast.expr]:
    """The elements of `iterable`: those of a display or comprehension, else `*iterable`."""
    if isinstance(iterable, (ast.List, ast.Tuple, ast.Set)):
        return list(iterable.elts)
    if isinstance(iterable, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
        return [iterable.elt]
    return [ast.Starred(value=iterable, ctx=ast.Load())]


def _number(function: _Function, value: ast.expr, depth: int) -> bool:
    """`value` is proved a number (or a tuple of numbers): its hash is no process's own."""
    if depth > _DEPTH:
        return False
    if isinstance(value, ast.Constant):
        return isinstance(value.value, (int, float))  # a bool is an int
    if isinstance(value, ast.Tuple):
        return all(_number(function, e, depth + 1) for e in value.elts)
    if isinstance(value, ast.Starred):  # the elements of `range(...)`
        inner = value.value
        return (
            isinstance(inner, ast.Call)
            and isinstance(inner.func, ast.Name)
            and (inner.func.id == "range" and "range" not in function.bound)
        )
    if isinstance(value, ast.Call):
        func = value.func
        return (
            isinstance(func, ast.Name) and func.id in NUMBER_CALLS and func.id not in function.bound
        )
    if isinstance(value, ast.BinOp):
        return _number(function, value.left, depth + 1) and _number(
            function, value.right, depth + 1
        )
    if not isinstance(value, ast.Name):
        return False
    bindings = function.bound.get(value.id, [])
    loops = function.fors.get(value.id, [])
    if not bindings or sum(b is None for b in bindings) != len(loops):
        return False
    return all(_number(function, b, depth + 1) for b in bindings if b is not None) and all(
        _number(function, e, depth + 1) for it in loops for e in _members(it)
    )


def _string(function: _Function, value: ast.expr, depth: int) -> bool:
    """`value` is proved a string (or a list of strings: an item of it is one too)."""
    if depth > _DEPTH:
        return False
    if isinstance(value, ast.Constant):
        return isinstance(value.value, str)
    if isinstance(value, ast.JoinedStr):
        return True
    if isinstance(value, ast.Call):
        func = value.func
        if isinstance(func, ast.Name):
            return func.id in STR_CALLS and function.bound.get(func.id) is None
        parts = ast_nodes.dotted(func)
        if parts is not None and tuple(parts) in STR_ROWS and parts[0] not in function.bound:
            return True  # `csv.reader(f)`: each row a list of strings
        return isinstance(func, ast.Attribute) and func.attr in STR_METHODS
    if isinstance(value, ast.Subscript):
        return _string(function, value.value, depth + 1)
    if not isinstance(value, ast.Name):
        return False
    bindings = function.bound.get(value.id, [])
    loops = function.fors.get(value.id, [])
    if not bindings or sum(b is None for b in bindings) != len(loops):
        return False  # a parameter, an unpacking, a `with ... as`: not typed here
    return all(_string(function, b, depth + 1) for b in bindings if b is not None) and all(
        _strings(function, it, depth + 1) for it in loops
    )


def _strings(function: _Function, value: ast.expr, depth: int) -> bool:
    """Every element of the iterable `value` is proved a string."""
    if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
        return all(_string(function, e, depth) for e in value.elts)
    if isinstance(value, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
        return _string(function, value.elt, depth)
    return _string(function, value, depth)
