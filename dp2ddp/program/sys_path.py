"""Folders a module adds to `sys.path` when it runs, where the path is known statically.

Research repositories often import their library through a `sys.path` edit rather than a
package: HRNet's `tools/_init_paths.py` (`add_path(osp.join(osp.dirname(__file__), '..',
'lib'))`), `sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
'common'))` at the top of a script, `sys.path.append(str(Path(__file__).parent.parent))`.
Discovery resolves the program's imports against these folders too, so the modules found
there join the program (their loaders are sharded, their prints guarded) instead of being
named by DP027.

Read from the module's top-level statements (also under a top-level `if`/`try`, and through
a top-level function that passes its parameter to `sys.path.insert`/`append`, as
`add_path`), with the names bound at the top level before the edit. Paths are built from
string literals, `__file__`, `os.path.{join,dirname,abspath,realpath,normpath}` (any alias
ending in `path`, or `osp`) and pathlib (`Path(...)`, `.parent`, `.parents[n]`,
`.resolve()`, `.absolute()`, `/`, `str(...)`). A relative literal is relative to the
working folder, taken to be the project root (where such projects are run from; without a
root marker, the entry's folder). An edit built from `__file__` or a relative literal is
anchored in the project: discovery widens the root to cover its folder (search_path.py).

Anything else is not an edit dp2ddp can follow: `unfollowed_edits` lists those sys.path
changes (a path known at run time only, `sys.path = ...`, an edit in a function discovery
does not follow, `site.addsitedir`), so that an import that then resolves to no file of the
program while a project folder of its name lies nearby is said (DP076) instead of leaving
that folder's code unmigrated in silence.

`sys.path[0]` is the folder of the script Python runs: in a module that is an entry script
(a `__main__` guard or training code at top level), its own folder
(qiuqiangkong/audioset_tagging_cnn@d2f4b8c, pytorch/main.py: `sys.path.insert(1,
os.path.join(sys.path[0], '../utils'))`, then `from utilities import ...`), anchored like
`__file__`; elsewhere it is not known.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterator
from typing import NamedTuple

from dp2ddp.transforms._support import ast_nodes

#: os.path functions whose result is a path built from their (path) arguments.
_PATH_FUNCTIONS = frozenset({"join", "dirname", "abspath", "realpath", "normpath"})
_PATHLIB = frozenset({"Path", "PurePath", "PosixPath"})

#: The key of `env` that holds `sys.path[0]` (not a Python name, so no binding shadows it).
_SCRIPT_FOLDER = "sys.path[0]"


class PathEdit(NamedTuple):
    """One folder a module puts on sys.path."""

    #: sys.path.insert(0, ...): searched before the entry's folder.
    in_front: bool
    #: As computed: absolute, or relative to the working folder.
    folder: str
    #: Built from `__file__` or a relative literal (a folder of the project wherever it
    #: lies), not an absolute literal (a folder of one machine): only an anchored edit
    #: widens the program's root.
    anchored: bool = True
    line: int = 0
    col: int = 0


class UnfollowedEdit(NamedTuple):
    """A change of sys.path discovery does not follow: where, and its source text."""

    line: int
    col: int
    code: str


def sys_path_edits(tree: ast.Module, file: str, script: bool = False) -> tuple[PathEdit, ...]:
    """The folders `tree` (the module at `file`) adds to sys.path, in order. `script`: the
    module is an entry script, so `sys.path[0]` is its folder."""
    return path_facts(tree, file, script)[0]


def path_facts(
    tree: ast.Module, file: str, script: bool = False
) -> tuple[tuple[PathEdit, ...], tuple[UnfollowedEdit, ...]]:
    """The folders `tree` adds to sys.path, and the sys.path changes it makes that are not
    among them (each call counted once: an edit is followed or it is listed). `script`: the
    module is an entry script, so `sys.path[0]` is its folder."""
    followed: set[int] = set()
    edits = _edits(tree, file, followed, script)
    return tuple(edits), tuple(sorted(_unfollowed(tree, followed)))


def _edits(tree: ast.Module, file: str, followed: set[int], script: bool) -> list[PathEdit]:
    env: dict[str, str] = {}
    if script:
        env[_SCRIPT_FOLDER] = os.path.dirname(os.path.abspath(file))
    from_file: set[str] = set()
    adders = _adders(tree.body)
    # An adder's own sys.path call puts its parameter there: its calls are what is followed.
    followed |= {adder.inner for adder in adders.values()}
    edits = _statement_edits(tree.body, (env, from_file), file, adders, followed)
    # A top-level function that extends sys.path and then imports (pytorch_stacked_hourglass's
    # data/MPII/dp.py: `sys.path.append(os.path.dirname(os.path.abspath(__file__)))`, then
    # `import ref` in `init()`): its folder is searched too, appended whatever the call
    # says (the function may not run before other imports, so it must not shadow another
    # module: appended, it only resolves imports nothing else resolves). A function that
    # imports nothing after its edit is left out, as before (an unfollowed edit).
    for function in tree.body:
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            seen: set[int] = set()
            inside = _statement_edits(function.body, (dict(env), set(from_file)), file, {}, seen)
            if inside and _imports_after_edit(function):
                edits += [edit._replace(in_front=False) for edit in inside]
                followed |= seen
    return edits


def _unfollowed(tree: ast.Module, followed: set[int]) -> Iterator[UnfollowedEdit]:
    """Every change of sys.path in `tree` that is not a followed edit (`followed`: the ids
    of the calls that are): a call of one of sys.path's methods that change it, an
    assignment to sys.path or to an item of it, `site.addsitedir(...)`, and a call of a
    function that puts its parameter on sys.path (an adder) that was not computed."""
    adders = set(_adders(tree.body))
    for node in ast_nodes.listed(tree):
        found = False
        if isinstance(node, ast.Call):
            func = node.func
            found = id(node) not in followed and (
                _sys_path_method(func)
                or (isinstance(func, ast.Attribute) and func.attr == "addsitedir")
                or (isinstance(func, ast.Name) and func.id in adders)
            )
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found = any(
                _is_sys_path(t) or (isinstance(t, ast.Subscript) and _is_sys_path(t.value))
                for t in targets
            )
        if found:
            assert isinstance(node, (ast.expr, ast.stmt))
            yield UnfollowedEdit(node.lineno, node.col_offset + 1, _code(node))


def _code(node: ast.AST) -> str:
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= 80 else text[:77] + "..."


def _is_sys_path(expr: ast.AST) -> bool:
    return (
        isinstance(expr, ast.Attribute)
        and expr.attr == "path"
        and isinstance(expr.value, ast.Name)
        and expr.value.id == "sys"
    )


#: sys.path's methods that change it.
_CHANGES = frozenset({"insert", "append", "extend", "remove", "pop", "clear", "__setitem__"})


def _sys_path_method(func: ast.expr) -> bool:
    """`sys.path.<a method that changes the list>`."""
    return isinstance(func, ast.Attribute) and _is_sys_path(func.value) and func.attr in _CHANGES


def _imports_after_edit(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """An import statement of `function` after its first sys.path call (source order)."""
    first = None
    for node in ast_nodes.walk(function):
        if isinstance(node, ast.Call) and _sys_path_call(node) is not None:
            at = (node.lineno, node.col_offset)
            first = at if first is None or at < first else first
    return first is not None and any(
        isinstance(node, (ast.Import, ast.ImportFrom)) and (node.lineno, node.col_offset) > first
        for node in ast_nodes.walk(function)
    )


#: The names bound to known paths at the top of a module (name -> path), and those of them
#: built from `__file__`.
_Names = tuple[dict[str, str], set[str]]


class _Adder(NamedTuple):
    """A top-level function that puts a parameter on sys.path (HRNet's `add_path`)."""

    position: int
    in_front: bool
    #: id of its own sys.path call
    inner: int


def _statement_edits(
    body: list[ast.stmt],
    names: _Names,
    file: str,
    adders: dict[str, _Adder],
    followed: set[int],
) -> list[PathEdit]:
    """The sys.path edits among `body`'s statements (into `if`/`try` blocks, not into the
    helpers they call but `adders`), keeping `names`, the names bound to known paths; the
    ids of the calls computed go into `followed`."""
    env, from_file = names
    edits: list[PathEdit] = []
    for statement in _top_level(body):
        if isinstance(statement, ast.ClassDef):
            _class_paths(statement, names, file)
        elif isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            if isinstance(target, ast.Name):
                value = _path(statement.value, env, file)
                from_file.discard(target.id)
                for key in [k for k in env if k.startswith(f"{target.id}.")]:
                    del env[key]
                if value is None:
                    env.pop(target.id, None)
                    _instance_paths(target.id, statement.value, names)
                else:
                    env[target.id] = value
                    if _uses_file(statement.value, from_file):
                        from_file.add(target.id)
        elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            found = _edit(statement.value, names, file, adders)
            if found:
                followed.add(id(statement.value))
                edits += found
    return edits


def _class_paths(cls: ast.ClassDef, names: _Names, file: str) -> None:
    """The paths `cls`'s body binds to its attributes, kept as `Class.attr` (a config
    class: `root_dir = osp.join(cur_dir, '..')` after `cur_dir =
    osp.dirname(osp.abspath(__file__))`, mks0601/3DMPPE_POSENET_RELEASE@dd025c5's
    main/config.py, round 38: its `sys.path.insert(0, osp.join(cfg.root_dir, 'common'))`
    was not followed and the trainer module holding the DataParallel was never migrated)."""
    env, from_file = names
    inner, inner_file = dict(env), set(from_file)
    for statement in cls.body:
        if not (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
        ):
            continue
        name = statement.targets[0].id
        value = _path(statement.value, inner, file)
        if value is None:
            inner.pop(name, None)
            env.pop(f"{cls.name}.{name}", None)
            continue
        inner[name] = value
        env[f"{cls.name}.{name}"] = value
        if _uses_file(statement.value, inner_file):
            inner_file.add(name)
            from_file.add(f"{cls.name}.{name}")


def _instance_paths(name: str, value: ast.expr, names: _Names) -> None:
    """`name = Class()` of a class `_class_paths` read: `name.attr` is `Class.attr`."""
    env, from_file = names
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)):
        return
    prefix = f"{value.func.id}."
    for key, path in list(env.items()):
        if key.startswith(prefix):
            attribute = f"{name}.{key[len(prefix) :]}"
            env[attribute] = path
            if key in from_file:
                from_file.add(attribute)


def resolve_edits(edits: tuple[PathEdit, ...], root: str) -> tuple[list[str], list[str]]:
    """(folders put in front, folders appended): absolute, existing folders only."""
    front: list[str] = []
    back: list[str] = []
    for edit in edits:
        folder = resolve_edit(edit, root)
        if folder is not None:
            (front if edit.in_front else back).append(folder)
    return front, back


def resolve_edit(edit: PathEdit, root: str) -> str | None:
    """The edit's folder, absolute (a relative one against `root`), if it exists."""
    folder = os.path.normpath(os.path.join(root, edit.folder))
    return folder if os.path.isdir(folder) else None


def _top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    for statement in body:
        yield statement
        if isinstance(statement, ast.If):
            yield from _top_level(statement.body)
            yield from _top_level(statement.orelse)
        elif isinstance(statement, ast.Try):
            yield from _top_level(statement.body)


def _adders(body: list[ast.stmt]) -> dict[str, _Adder]:
    """Top-level functions that put a parameter on sys.path, by name."""
    found: dict[str, _Adder] = {}
    for statement in body:
        if not isinstance(statement, ast.FunctionDef):
            continue
        params = [a.arg for a in statement.args.args]
        for node in ast_nodes.walk(statement):
            if not isinstance(node, ast.Call):
                continue
            edit = _sys_path_call(node)
            if edit is None:
                continue
            in_front, value = edit
            if isinstance(value, ast.Name) and value.id in params:
                found[statement.name] = _Adder(params.index(value.id), in_front, id(node))
    return found


def _sys_path_call(call: ast.Call) -> tuple[bool, ast.expr] | None:
    """`sys.path.insert(i, x)` -> (i == 0, x); `sys.path.append(x)` -> (False, x)."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and _is_sys_path(func.value)):
        return None
    if func.attr == "append" and len(call.args) == 1:
        return False, call.args[0]
    if func.attr == "insert" and len(call.args) == 2:
        index = call.args[0]
        front = isinstance(index, ast.Constant) and index.value == 0
        return front, call.args[1]
    return None


def _edit(call: ast.Call, names: _Names, file: str, adders: dict[str, _Adder]) -> list[PathEdit]:
    env, from_file = names
    direct = _sys_path_call(call)
    if direct is not None:
        in_front, expr = direct
        exprs = [expr]
    elif (
        isinstance(call.func, ast.Attribute)
        and _is_sys_path(call.func.value)
        and call.func.attr == "extend"
        and len(call.args) == 1
        and isinstance(call.args[0], (ast.List, ast.Tuple))
    ):
        in_front, exprs = False, list(call.args[0].elts)
    elif isinstance(call.func, ast.Name) and call.func.id in adders:
        adder = adders[call.func.id]
        if adder.position >= len(call.args):
            return []
        in_front, exprs = adder.in_front, [call.args[adder.position]]
    else:
        return []
    edits = []
    for expr in exprs:
        value = _path(expr, env, file)
        if value is None:
            return []  # one unknown folder: the call is not followed (listed)
        anchored = not os.path.isabs(value) or _uses_file(expr, from_file)
        edits.append(PathEdit(in_front, value, anchored, call.lineno, call.col_offset + 1))
    return edits


def _uses_file(expr: ast.expr, from_file: set[str]) -> bool:
    """`expr` is built from `__file__` (directly or through a name in `from_file`, the names
    bound to such paths)."""
    return any(
        (isinstance(node, ast.Name) and (node.id == "__file__" or node.id in from_file))
        or (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and f"{node.value.id}.{node.attr}" in from_file
        )
        or _is_script_folder(node)
        for node in ast_nodes.walk(expr)
    )


def _path(expr: ast.expr, env: dict[str, str], file: str) -> str | None:
    """The path `expr` evaluates to, or None when it is not known statically."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return expr.value
    if isinstance(expr, ast.Name):
        if expr.id == "__file__":
            return os.path.abspath(file)
        return env.get(expr.id)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div):  # pathlib's `/`
        left, right = _path(expr.left, env, file), _path(expr.right, env, file)
        return None if left is None or right is None else os.path.join(left, right)
    if (
        isinstance(expr, ast.Attribute)
        and isinstance(expr.value, ast.Name)
        and f"{expr.value.id}.{expr.attr}" in env
    ):
        return env[f"{expr.value.id}.{expr.attr}"]  # a config object's attribute
    if isinstance(expr, ast.Attribute) and expr.attr == "parent":
        inner = _path(expr.value, env, file)
        return None if inner is None else os.path.dirname(inner)
    if (
        isinstance(expr, ast.Subscript)
        and isinstance(expr.value, ast.Attribute)
        and expr.value.attr == "parents"
        and isinstance(expr.slice, ast.Constant)
        and isinstance(expr.slice.value, int)
    ):
        inner = _path(expr.value.value, env, file)
        if inner is None:
            return None
        for _ in range(expr.slice.value + 1):
            inner = os.path.dirname(inner)
        return inner
    if _split_head(expr):  # `os.path.split(p)[0]`: dirname (round 39, LEDNet@5d900d9)
        assert isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Call)
        inner = _path(expr.value.args[0], env, file)
        return None if inner is None else os.path.dirname(inner)
    if isinstance(expr, ast.Call):
        return _called(expr, env, file)
    if _is_script_folder(expr):
        return env.get(_SCRIPT_FOLDER)
    return None


def _split_head(expr: ast.AST) -> bool:
    """`os.path.split(p)[0]` (`osp.split`, `path.split`): the folder of `p`, as dirname."""
    return (
        isinstance(expr, ast.Subscript)
        and isinstance(expr.slice, ast.Constant)
        and expr.slice.value == 0
        and isinstance(expr.value, ast.Call)
        and isinstance(expr.value.func, ast.Attribute)
        and expr.value.func.attr == "split"
        and _is_os_path(expr.value.func.value)
        and len(expr.value.args) == 1
        and not expr.value.keywords
    )


def _is_script_folder(expr: ast.AST) -> bool:
    """`sys.path[0]`."""
    return (
        isinstance(expr, ast.Subscript)
        and _is_sys_path(expr.value)
        and isinstance(expr.slice, ast.Constant)
        and expr.slice.value == 0
    )


def _called(call: ast.Call, env: dict[str, str], file: str) -> str | None:
    func = call.func
    if call.keywords:
        return None
    args = [_path(a, env, file) for a in call.args]
    if any(a is None for a in args):
        return None
    values = [a for a in args if a is not None]
    if isinstance(func, ast.Name) and func.id in (_PATHLIB | {"str"}) and len(values) == 1:
        return values[0]
    if isinstance(func, ast.Attribute) and func.attr in ("resolve", "absolute") and not values:
        inner = _path(func.value, env, file)
        return None if inner is None else os.path.normpath(inner)
    name = func.id if isinstance(func, ast.Name) else None
    if isinstance(func, ast.Attribute) and _is_os_path(func.value):
        name = func.attr
    if name not in _PATH_FUNCTIONS or not values:
        return None
    if name == "join":
        return os.path.join(*values)
    if len(values) != 1:
        return None
    if name == "dirname":
        return os.path.dirname(values[0])
    # abspath/realpath of a relative path: relative to the working folder, resolved later.
    return os.path.normpath(values[0])


def _is_os_path(expr: ast.expr) -> bool:
    """`os.path`, `osp`, `path` (as imported: `import os.path as osp`, `from os import
    path`)."""
    if isinstance(expr, ast.Attribute):
        return expr.attr == "path" and isinstance(expr.value, ast.Name) and expr.value.id == "os"
    return isinstance(expr, ast.Name) and expr.id in ("osp", "path")
