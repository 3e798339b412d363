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
working folder, taken to be the project root (where such projects are run from).
`sys.path[0]` is the folder of the script Python runs: in a module that is an entry script
(a `__main__` guard or training code at top level), its own folder
(qiuqiangkong/audioset_tagging_cnn@d2f4b8c, pytorch/main.py: `sys.path.insert(1,
os.path.join(sys.path[0], '../utils'))`, then `from utilities import ...`); elsewhere it is
not known. Anything else is not an edit dp2ddp can follow (DP027 stays where it applies).
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterator

#: os.path functions whose result is a path built from their (path) arguments.
_PATH_FUNCTIONS = frozenset({"join", "dirname", "abspath", "realpath", "normpath"})
_PATHLIB = frozenset({"Path", "PurePath", "PosixPath"})

#: The key of `env` that holds `sys.path[0]` (not a Python name, so no binding shadows it).
_SCRIPT_FOLDER = "sys.path[0]"

#: (in front: sys.path.insert(0, ...), a folder as written: absolute, or relative to the
#: working folder)
PathEdit = tuple[bool, str]


def sys_path_edits(tree: ast.Module, file: str, script: bool = False) -> tuple[PathEdit, ...]:
    """The folders `tree` (the module at `file`) adds to sys.path, in order. `script`: the
    module is an entry script, so `sys.path[0]` is its folder."""
    env: dict[str, str] = {}
    if script:
        env[_SCRIPT_FOLDER] = os.path.dirname(os.path.abspath(file))
    edits = _statement_edits(tree.body, env, file, _adders(tree.body))
    # A top-level function that extends sys.path and then imports (pytorch_stacked_hourglass's
    # data/MPII/dp.py: `sys.path.append(os.path.dirname(os.path.abspath(__file__)))`, then
    # `import ref` in `init()`): its folder is searched too, appended whatever the call
    # says (the function may not run before other imports, so it must not shadow another
    # module: appended, it only resolves imports nothing else resolves). A function that
    # imports nothing after its edit is left out, as before.
    for function in tree.body:
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inside = _statement_edits(function.body, dict(env), file, {})
            if inside and _imports_after_edit(function):
                edits += [(False, folder) for _, folder in inside]
    return tuple(edits)


def _imports_after_edit(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """An import statement of `function` after its first sys.path call (source order)."""
    first = None
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and _sys_path_call(node) is not None:
            at = (node.lineno, node.col_offset)
            first = at if first is None or at < first else first
    return first is not None and any(
        isinstance(node, (ast.Import, ast.ImportFrom)) and (node.lineno, node.col_offset) > first
        for node in ast.walk(function)
    )


def _statement_edits(
    body: list[ast.stmt], env: dict[str, str], file: str, adders: dict[str, tuple[int, bool]]
) -> list[PathEdit]:
    """The sys.path edits among `body`'s statements (into `if`/`try` blocks, not into the
    helpers they call but `adders`), keeping `env`, the names bound to known paths."""
    edits: list[PathEdit] = []
    for statement in _top_level(body):
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            if isinstance(target, ast.Name):
                value = _path(statement.value, env, file)
                if value is None:
                    env.pop(target.id, None)
                else:
                    env[target.id] = value
        elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            edits += _edit(statement.value, env, file, adders)
    return edits


def resolve_edits(edits: tuple[PathEdit, ...], root: str) -> tuple[list[str], list[str]]:
    """(folders put in front, folders appended): absolute, existing folders only."""
    front: list[str] = []
    back: list[str] = []
    for in_front, folder in edits:
        folder = os.path.normpath(os.path.join(root, folder))
        if os.path.isdir(folder):
            (front if in_front else back).append(folder)
    return front, back


def _top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    for statement in body:
        yield statement
        if isinstance(statement, ast.If):
            yield from _top_level(statement.body)
            yield from _top_level(statement.orelse)
        elif isinstance(statement, ast.Try):
            yield from _top_level(statement.body)


def _adders(body: list[ast.stmt]) -> dict[str, tuple[int, bool]]:
    """Top-level functions that put a parameter on sys.path: name -> (the parameter's
    position, in front)."""
    found: dict[str, tuple[int, bool]] = {}
    for statement in body:
        if not isinstance(statement, ast.FunctionDef):
            continue
        params = [a.arg for a in statement.args.args]
        for node in ast.walk(statement):
            if not isinstance(node, ast.Call):
                continue
            edit = _sys_path_call(node)
            if edit is None:
                continue
            in_front, value = edit
            if isinstance(value, ast.Name) and value.id in params:
                found[statement.name] = (params.index(value.id), in_front)
    return found


def _sys_path_call(call: ast.Call) -> tuple[bool, ast.expr] | None:
    """`sys.path.insert(i, x)` -> (i == 0, x); `sys.path.append(x)` -> (False, x)."""
    func = call.func
    if not (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Attribute)
        and func.value.attr == "path"
        and isinstance(func.value.value, ast.Name)
        and func.value.value.id == "sys"
    ):
        return None
    if func.attr == "append" and len(call.args) == 1:
        return False, call.args[0]
    if func.attr == "insert" and len(call.args) == 2:
        index = call.args[0]
        front = isinstance(index, ast.Constant) and index.value == 0
        return front, call.args[1]
    return None


def _edit(
    call: ast.Call, env: dict[str, str], file: str, adders: dict[str, tuple[int, bool]]
) -> list[PathEdit]:
    direct = _sys_path_call(call)
    if direct is not None:
        in_front, expr = direct
    elif isinstance(call.func, ast.Name) and call.func.id in adders:
        position, in_front = adders[call.func.id]
        if position >= len(call.args):
            return []
        expr = call.args[position]
    else:
        return []
    value = _path(expr, env, file)
    return [] if value is None else [(in_front, value)]


def _path(expr: ast.expr, env: dict[str, str], file: str) -> str | None:
    """The path `expr` evaluates to, or None when it is not known statically."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return expr.value
    if isinstance(expr, ast.Name):
        if expr.id == "__file__":
            return os.path.abspath(file)
        return env.get(expr.id)
    if _is_script_folder(expr):
        return env.get(_SCRIPT_FOLDER)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div):  # pathlib's `/`
        left, right = _path(expr.left, env, file), _path(expr.right, env, file)
        return None if left is None or right is None else os.path.join(left, right)
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
    if isinstance(expr, ast.Call):
        return _called(expr, env, file)
    return None


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


def _is_script_folder(expr: ast.expr) -> bool:
    """`sys.path[0]`."""
    return (
        isinstance(expr, ast.Subscript)
        and isinstance(expr.value, ast.Attribute)
        and expr.value.attr == "path"
        and isinstance(expr.value.value, ast.Name)
        and expr.value.value.id == "sys"
        and isinstance(expr.slice, ast.Constant)
        and expr.slice.value == 0
    )


def _is_os_path(expr: ast.expr) -> bool:
    """`os.path`, `osp`, `path` (as imported: `import os.path as osp`, `from os import
    path`)."""
    if isinstance(expr, ast.Attribute):
        return expr.attr == "path" and isinstance(expr.value, ast.Name) and expr.value.id == "os"
    return isinstance(expr, ast.Name) and expr.id in ("osp", "path")
