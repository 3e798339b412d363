"""The one home of helpers on `ast` nodes shared by the project model and the passes.

Discovery and the program hints read every project file with `ast` (cheaper than libcst);
the passes' libcst spelling of the same tests lives in `nodes.py`.
"""

from __future__ import annotations

import ast
import threading


class _ParsedTexts:
    """`ast.parse(source)`, once per text while the text is among the recently parsed.

    A run reads the same text with `ast` from many places: the project model's facts of
    each module (its classes, draws, loader subclasses, program hints: on bench_project's
    `half` each module was parsed nine times), the passes' cheap pre-readers of a module,
    the tidying of the output. A parse costs about 1,900 instructions a character, as much
    as printing the text, so a text is parsed once and its tree shared: its readers never
    change it. The trees of the last texts up to `budget` characters in all are kept (at
    least the last `least`, whatever their size): about 40 bytes of tree a character, so
    at most some 20 MB, kept across the programs of a folder (their modules are shared).
    A text that does not parse raises each time (no exception is kept)."""

    def __init__(self, budget: int, least: int) -> None:
        self._budget = budget
        self._least = least
        self._trees: dict[str, ast.Module] = {}  # least recently used first
        self._size = 0
        self._lock = threading.Lock()  # --jobs threads share it

    def __call__(self, source: str) -> ast.Module:
        with self._lock:
            tree = self._trees.pop(source, None)
            if tree is not None:
                self._trees[source] = tree
                return tree
        tree = ast.parse(source)
        self.keep(source, tree)
        return tree

    def keep(self, source: str, tree: ast.Module) -> None:
        """Keep `tree`, the ast of `source` parsed elsewhere (discovery parses each file
        once, naming the file for a syntax error), as `self(source)` would."""
        with self._lock:
            if source not in self._trees:
                self._size += len(source)
            self._trees[source] = tree
            while len(self._trees) > self._least and self._size > self._budget:
                oldest = next(iter(self._trees))
                self._size -= len(oldest)
                del self._trees[oldest]

    def cache_clear(self) -> None:
        with self._lock:
            self._trees.clear()
            self._size = 0


parse_python = _ParsedTexts(budget=500_000, least=4)


def is_script_guard(test: ast.expr) -> bool:
    """`__name__ == "__main__"`: the block runs only when the file is the script, never when
    the program imports it (the ast spelling of `nodes.is_script_guard`)."""
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Eq)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == "__main__"
    )


def from_import_base(package: str, node: ast.ImportFrom) -> str | None:
    """The module `from <dots><module> import ...` names, for a module of `package` (its
    package's dotted name, "" at the top): `node.module` when absolute; a relative one
    climbs `level - 1` packages up from `package`. None when it climbs above the top."""
    base = node.module or ""
    if not node.level:
        return base
    parts = package.split(".") if package else []
    keep = len(parts) - (node.level - 1)
    if keep < 0:
        return None
    return ".".join([*parts[:keep], *([base] if base else [])])


def is_self_attribute(node: ast.AST, me: str) -> bool:
    """`self.x` (`me` is the method's first parameter's name): one attribute of the object,
    the one test every ast reader of a module class asks."""
    return (
        isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == me
    )


def plain_class(cls: ast.ClassDef) -> bool:
    """A class with no base but `object` and no metaclass: no nn.Module, so its forward()
    is no model's (a trainer's `forward()` running the epochs: gjy3035/C-3-Framework@f8e21fa
    trainer.py, taken for the wrapped model's at stop 60, v2-B)."""
    return not cls.keywords and all(isinstance(b, ast.Name) and b.id == "object" for b in cls.bases)


def last_name(node: ast.AST) -> str:
    """The name a `Name` or `Attribute` ends with (`x.y.name` -> "name"); "" otherwise."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def model_name(func: ast.AST) -> str:
    """The name of the model a call's `func` runs: `net` of `net(x)` and of `net.forward(x)`
    (nodes.model_called's reading, for the passes that read `ast` trees: round 33,
    yangjianxin1/CPM@2e11cc9's `model.forward(input_ids, labels=labels)` hid its padded
    batch, DP127, that `model(...)` showed)."""
    if isinstance(func, ast.Attribute) and func.attr == "forward":
        return last_name(func.value)
    return last_name(func)


def walk(tree: ast.AST) -> list[ast.AST]:
    """Every node under `tree`, in `ast.walk`'s breadth-first order, as a list, in about
    half its time: the list is the queue (no deque, no generators), and constants, the most
    frequent leaves, are not searched for children. For the walks over every file of a
    project (dotted constants, import calls: millions of nodes on torch's tree)."""
    nodes: list[ast.AST] = [tree]
    push = nodes.append
    node_type, constant = ast.AST, ast.Constant
    for node in nodes:  # grows while it is read: breadth-first
        if node.__class__ is constant:
            continue
        for name in node._fields:
            child = getattr(node, name, None)
            if child.__class__ is list:
                for item in child:
                    if isinstance(item, node_type):
                        push(item)
            elif isinstance(child, node_type):
                push(child)
    return nodes


#: How many module trees `listed` keeps the listing of (the most recently asked).
LISTED_TREES = 8
_listings: dict[int, tuple[ast.AST, list[ast.AST]]] = {}


def listed(tree: ast.AST) -> list[ast.AST]:
    """`ast.walk(tree)` as a list (`walk`), of a whole module listed once per tree object.

    The program facts each read a whole module in their own walk (the program hints alone
    made 25 walks of each module, the facts of stop 32-34 about as many again: a tenth of a
    monorepo's time). A module's tree is read-only once parsed (`parse_python`), so its
    listing is kept for the last LISTED_TREES trees asked (each held, so that its id is not
    reused while kept): the readers of one module ask in turn, before the next module's.
    A listing is only pointers to nodes the tree holds anyway. Other roots (a function, a
    statement) are walked each time. Callers iterate the list and never change it."""
    if type(tree) is not ast.Module:
        return walk(tree)
    key = id(tree)
    found = _listings.get(key)
    if found is not None and found[0] is tree:
        _listings[key] = _listings.pop(key)  # most recently used last
        return found[1]
    nodes = _listings[key] = (tree, walk(tree))
    while len(_listings) > LISTED_TREES:
        del _listings[next(iter(_listings))]
    return nodes[1]


def top_level_names(tree: ast.Module, *, every_binding: bool = False) -> set[str]:
    """Names a module binds at its top level: its defs and classes, the names its
    assignments' targets spell (`a, b = ...`; `x.y = ...` spells x) and a plainly annotated
    name (`x: int = 0`). every_binding: also what augmented and other annotated targets
    spell and what its imports bind (`import a.b` binds a; not `*`). The program hints
    (pure functions) and the dynamic imports (names a module defines) each had a copy."""
    names: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(statement.name)
        elif isinstance(statement, ast.Assign) or (
            every_binding and isinstance(statement, (ast.AnnAssign, ast.AugAssign))
        ):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                names.update(n.id for n in walk(target) if isinstance(n, ast.Name))
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            names.add(statement.target.id)
        elif every_binding and isinstance(statement, (ast.Import, ast.ImportFrom)):
            for alias in statement.names:
                if alias.name != "*":
                    names.add((alias.asname or alias.name).partition(".")[0])
    return names


def import_binding(alias: ast.alias) -> tuple[str, str]:
    """(the name an `import` binds, the module it stands for): `import a.b as c` binds c
    to a.b, `import a.b` binds a to a."""
    if alias.asname:
        return alias.asname, alias.name
    head = alias.name.partition(".")[0]
    return head, head


def import_table(tree: ast.Module, module: str, is_package: bool) -> dict[str, str]:
    """Local name -> dotted name it stands for, from the module's top-level imports and
    its own functions (`module`: its dotted name, "" for a file migrated alone)."""
    table: dict[str, str] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Import):
            table.update(import_binding(alias) for alias in statement.names)
        elif isinstance(statement, ast.ImportFrom):
            base = statement.module or ""
            if statement.level:
                parts = module.split(".") if module else []
                keep = len(parts) - statement.level + (1 if is_package else 0)
                if keep < 0:
                    continue
                base = ".".join([*parts[:keep], *([base] if base else [])])
            for alias in statement.names:
                if alias.name != "*":
                    full = f"{base}.{alias.name}" if base else alias.name
                    table[alias.asname or alias.name] = full
        elif isinstance(statement, ast.FunctionDef):
            table[statement.name] = f"{module}.{statement.name}" if module else statement.name
    return table


def resolved_name(func: ast.expr, table: dict[str, str]) -> str:
    """The dotted name a call's target stands for through the module's imports (`table`:
    import_table's); "" when its root name is none of them."""
    parts = dotted(func)
    if parts is None or parts[0] not in table:
        return ""
    return ".".join([table[parts[0]], *parts[1:]])


def dotted(node: ast.expr) -> list[str] | None:
    """["a", "b", "c"] of `a.b.c`; None when its root is not a name."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id, *reversed(parts)]


def call_slots(call: ast.Call) -> list[tuple[str, ast.expr]]:
    """(slot, argument) of each argument `call` hands: a position as its index ("0", "1",
    ...), a keyword as its name, `**mapping` as "**" (a `*args` element keeps its index,
    its value the Starred node). The slots program facts name a parameter by
    (`function|slot`)."""
    given: list[tuple[str, ast.expr]] = [(str(i), a) for i, a in enumerate(call.args)]
    given += [(k.arg or "**", k.value) for k in call.keywords]
    return given
