"""Strings a program computes from literals at module level (the dotted names of dynamic
imports): constants, f-strings and `+` of them, `%`/`.format` templates, each module's
anchor for a relative name, the files a computed name's shape can be. Read by
dynamic_imports.py."""

from __future__ import annotations

import ast
import os
import re

from dp2ddp.migrate.discovery import SKIPPED_DIRS
from dp2ddp.transforms._support import ast_nodes


def local_values(tree: ast.Module) -> dict[int, dict[str, ast.expr]]:
    """For each call inside a function: the function's names bound exactly once, by a plain
    assignment, to their value (the innermost function wins)."""
    found: dict[int, dict[str, ast.expr]] = {}
    for function in ast_nodes.listed(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        counts: dict[str, int] = {}
        values: dict[str, ast.expr] = {}
        for node in ast_nodes.walk(function):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                counts[node.id] = counts.get(node.id, 0) + 1
            elif isinstance(node, ast.arg):
                counts[node.arg] = counts.get(node.arg, 0) + 2  # a parameter: never a value
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
            ):
                values[node.targets[0].id] = node.value
        single = {k: v for k, v in values.items() if counts.get(k) == 1}
        for node in ast_nodes.walk(function):
            if isinstance(node, ast.Call):
                found[id(node)] = single
    return found


def module_constants(tree: ast.Module) -> dict[str, str]:
    """Module-level names bound once, to a string known statically."""
    counts: dict[str, int] = {}
    values: dict[str, ast.expr] = {}
    for node in ast_nodes.listed(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            counts[node.id] = counts.get(node.id, 0) + 1
    for stmt in tree.body:
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
        ):
            values[stmt.targets[0].id] = stmt.value
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value:
            values[stmt.target.id] = stmt.value
    constants: dict[str, str] = {}
    for _ in range(3):  # constants built from constants, a few levels deep
        for name, value in values.items():
            if counts.get(name) == 1 and name not in constants:
                text = static_string(value, constants)
                if text is not None:
                    constants[name] = text
    return constants


def static_string(node: ast.expr, constants: dict[str, str]) -> str | None:
    """The string value of an expression built from literals and constants, else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = static_string(node.left, constants), static_string(node.right, constants)
        return left + right if left is not None and right is not None else None
    if isinstance(node, ast.JoinedStr):
        parts: list[str] = []
        for value in node.values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                parts.append(value.value)
            elif (
                isinstance(value, ast.FormattedValue)
                and value.conversion == -1
                and value.format_spec is None
            ):
                inner = static_string(value.value, constants)
                if inner is None:
                    return None
                parts.append(inner)
            else:
                return None
        return "".join(parts)
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.slice, ast.Constant)
        and node.slice.value == 0
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Attribute)
        and node.value.func.attr == "rpartition"
        and node.value.args
    ):
        text = static_string(node.value.func.value, constants)
        separator = static_string(node.value.args[0], constants)
        return text.rpartition(separator)[0] if text is not None and separator else None
    if is_format(node):
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        template = static_string(node.func.value, constants)
        args = [static_string(a, constants) for a in node.args]
        if template is None or node.keywords or any(a is None for a in args):
            return None
        try:
            return template.format(*args)
        except (IndexError, KeyError, ValueError):
            return None
    return None


def is_format(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
    )


def leading_text(node: ast.expr, constants: dict[str, str]) -> str:
    """The static text a computed string starts with (`'models.' + x` -> 'models.')."""
    whole = static_string(node, constants)
    if whole is not None:
        return whole
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = static_string(node.left, constants)
        return left if left is not None else leading_text(node.left, constants)
    if isinstance(node, ast.JoinedStr):
        text = ""
        for value in node.values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                text += value.value
                continue
            inner = (
                static_string(value.value, constants)
                if isinstance(value, ast.FormattedValue)
                else None
            )
            if inner is None:
                break
            text += inner
        return text
    if is_format(node):
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        template = static_string(node.func.value, constants)
        return template.split("{", 1)[0] if template is not None else ""
    template = percent_template(node, constants)
    if template is not None:
        first = PERCENT_SPEC.search(template)
        return template[: first.start()] if first is not None else ""
    return ""


#: One conversion of printf-style formatting (`%s`, `%(name)d`, `%-5.2f`), `%%` included.
PERCENT_SPEC = re.compile(r"%(\([^)]*\))?[-#0 +]*(\*|\d+)?(\.(\*|\d+))?[hlL]?[diouxXeEfFgGcrsa%]")


def percent_template(node: ast.expr, constants: dict[str, str]) -> str | None:
    """The static template of `template % values` (stop 46, v1-B: icoz69/CEC-CVPR2021's
    `import_module('models.%s.fscil_trainer' % args.project)`, read as no name at all before,
    so the two modules it imports were left unmigrated); None when it is not one, or when
    the template has a literal `%%` (its static parts are then not the template's text)."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod)):
        return None
    template = static_string(node.left, constants)
    if template is None or "%%" in template:
        return None
    return template


def trailing_text(node: ast.expr, constants: dict[str, str]) -> str:
    """The static text a computed string ends with (`'models.' + x + '_model'` -> '_model');
    '' when it ends with a computed part."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        right = static_string(node.right, constants)
        return right if right is not None else trailing_text(node.right, constants)
    if isinstance(node, ast.JoinedStr):
        text = ""
        for value in reversed(node.values):
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                text = value.value + text
                continue
            inner = (
                static_string(value.value, constants)
                if isinstance(value, ast.FormattedValue)
                else None
            )
            if inner is None:
                break
            text = inner + text
        return text
    if is_format(node):
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        template = static_string(node.func.value, constants)
        return template.rsplit("}", 1)[-1] if template is not None and "}" in template else ""
    template = percent_template(node, constants)
    if template is not None:
        specs = list(PERCENT_SPEC.finditer(template))
        return template[specs[-1].end() :] if specs else ""
    return ""


def dotted_name_of(
    call: ast.Call, constants: dict[str, str], package: str, module: str, relative_ok: bool
) -> tuple[str | None, str | None]:
    """(whole absolute name, None) when static; (None, package prefix) for a computed name
    under a static package; (None, None) when nothing is known."""
    argument = call.args[0]
    anchor = anchor_of(call, constants, package, module) if relative_ok else None
    whole = static_string(argument, constants)
    if whole is not None:
        return absolute_name(whole, anchor), None
    leading = leading_text(argument, constants)
    if "." not in leading:
        return None, None
    head = leading.rpartition(".")[0]  # 'models.' -> 'models'; '.' -> ''
    if leading.startswith("."):
        absolute = absolute_name(head + ".x", anchor)
        return None, absolute.rpartition(".")[0] if absolute else None
    return None, head or None


def anchor_of(call: ast.Call, constants: dict[str, str], package: str, module: str) -> str | None:
    """The `package` argument of import_module: a literal or constant, `__package__` (the
    calling module's package) or `__name__` (the module itself, the package for an
    __init__)."""
    node = call.args[1] if len(call.args) > 1 else None
    for keyword in call.keywords:
        if keyword.arg == "package":
            node = keyword.value
    if node is None:
        return None
    if isinstance(node, ast.Name) and node.id == "__package__":
        return package
    if isinstance(node, ast.Name) and node.id == "__name__":
        return module
    return static_string(node, constants)


def absolute_name(name: str, anchor: str | None) -> str | None:
    """`name` made absolute (importlib.util.resolve_name's rule); None when it cannot be."""
    if not name.startswith("."):
        return name
    if not anchor:
        return None
    level = len(name) - len(name.lstrip("."))
    parts = anchor.split(".")
    if level - 1 > len(parts) - 1:
        return None
    base = ".".join(parts[: len(parts) - (level - 1)])
    rest = name[level:]
    return f"{base}.{rest}" if rest else base


def computed_parts(node: ast.expr, constants: dict[str, str]) -> list[ast.expr]:
    """The parts of a computed string that are not static: `args.arch` of `'models.' +
    args.arch + '_net'`, of `f'models.{args.arch}'` and of `'models.{}'.format(args.arch)`."""
    if static_string(node, constants) is not None:
        return []
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return computed_parts(node.left, constants) + computed_parts(node.right, constants)
    if isinstance(node, ast.JoinedStr):
        return [
            v.value
            for v in node.values
            if isinstance(v, ast.FormattedValue) and static_string(v.value, constants) is None
        ]
    if is_format(node):
        assert isinstance(node, ast.Call)
        return [a for a in node.args if static_string(a, constants) is None]
    return [node]


#: One replacement field of a `.format` template (`{}`, `{0}`, `{name}`).
_FORMAT_FIELD = re.compile(r"\{[^{}]*\}")


def name_pieces(node: ast.expr, constants: dict[str, str]) -> list[str | None]:
    """A string's static pieces in order, None for each computed part, adjacent static
    pieces joined: `'models.' + a + '.' + a + '-train'` -> ['models.', None, '.', None,
    '-train'] (`+`, f-strings, `.format` and `%` templates; any other computed value is one
    None). The shape of an import's name: which files of its package it can be."""
    pieces: list[str | None] = []
    for piece in _pieces(node, constants):
        if isinstance(piece, str) and pieces and isinstance(pieces[-1], str):
            pieces[-1] += piece
        elif piece != "":
            pieces.append(piece)
    return pieces


def _pieces(node: ast.expr, constants: dict[str, str]) -> list[str | None]:
    whole = static_string(node, constants)
    if whole is not None:
        return [whole]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _pieces(node.left, constants) + _pieces(node.right, constants)
    if isinstance(node, ast.JoinedStr):
        return [
            v.value
            if isinstance(v, ast.Constant) and isinstance(v.value, str)
            else static_string(v.value, constants)
            if isinstance(v, ast.FormattedValue) and v.conversion == -1 and not v.format_spec
            else None
            for v in node.values
        ]
    if is_format(node):
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        template, fields = static_string(node.func.value, constants), _FORMAT_FIELD
    else:
        template, fields = percent_template(node, constants), PERCENT_SPEC
    if template is None or "{{" in template or "}}" in template:
        return [None]
    found: list[str | None] = []
    at = 0
    for field in fields.finditer(template):
        found += [template[at : field.start()], None]
        at = field.end()
    return [*found, template[at:]]


def name_shape(pieces: list[str | None], prefix: str) -> tuple[str | None, ...]:
    """The pieces of a name after `prefix.` (name_pieces), where they hold a computed
    part; () when the name does not start with the prefix as written (a relative name)."""
    first = pieces[0] if pieces else None
    if not isinstance(first, str) or not first.startswith(prefix + "."):
        return ()
    rest = [first[len(prefix) + 1 :], *pieces[1:]]
    return tuple(p for p in rest if p != "") if None in rest else ()


def shaped_members(folder: str, shape: tuple[str | None, ...]) -> list[str]:
    """The modules `<package>.<shape>` can import under the package's `folder` (sorted):
    each dotted part of the shape a folder, the last a module or a package's __init__, a
    computed piece any text within one part (`(None, '.', None, '-train')`:
    `models/<a>/<b>-train.py`; importlib takes a name no `import` statement can, and
    pytorch.template's trainers are `models/deeplab/deeplab-train.py`: mtroym/
    pytorch.template@6af2caf, stop 63, read as `models/<a>/__init__.py` before)."""
    parts = [""]
    for piece in shape:
        if piece is None:
            parts[-1] += "[^.]+"
            continue
        first, *more = piece.split(".")
        parts[-1] += re.escape(first)
        parts += [re.escape(p) for p in more]
    patterns = [re.compile(p) for p in parts]
    found: list[str] = []
    folders = [folder]
    for depth, pattern in enumerate(patterns):
        last = depth == len(patterns) - 1
        below: list[str] = []
        for current in folders:
            try:
                entries = sorted(os.listdir(current))
            except OSError:
                continue
            for entry in entries:
                path = os.path.join(current, entry)
                stem = entry[: -len(".py")] if last and entry.endswith(".py") else entry
                if entry in SKIPPED_DIRS or entry.startswith(".") or not pattern.fullmatch(stem):
                    continue
                if not last:
                    below += [path] if os.path.isdir(path) else []
                elif entry.endswith(".py") and os.path.isfile(path) and stem != "__init__":
                    found.append(path)
                elif os.path.isfile(os.path.join(path, "__init__.py")):
                    found.append(os.path.join(path, "__init__.py"))
        folders = below
    return found


def bounded_values(part: ast.expr, tree: ast.Module) -> tuple[str, ...] | None:
    """The values a computed part of an import name can take, where the module bounds
    them (None where it does not): an option of argparse with `choices=` of string
    literals (`args.arch`, `arch` for `add_argument('--arch', choices=['mlp', 'cnn'])`,
    also through `.lower()`), or a module-level dict of string literals read by a key
    (`ARCHS[args.arch]` of `ARCHS = {'small': 'mlp', 'big': 'cnn'}`)."""
    lower = False
    if (
        isinstance(part, ast.Call)
        and isinstance(part.func, ast.Attribute)
        and part.func.attr == "lower"
        and not part.args
    ):
        part, lower = part.func.value, True
    found: tuple[str, ...] | None = None
    if isinstance(part, ast.Subscript) and isinstance(part.value, ast.Name):
        found = _dict_values(tree, part.value.id)
    elif isinstance(part, (ast.Attribute, ast.Name)):
        found = _choices(tree, part.attr if isinstance(part, ast.Attribute) else part.id)
    if found is None:
        return None
    return tuple(v.lower() for v in found) if lower else found


def _strings(node: ast.expr) -> tuple[str, ...] | None:
    """The strings of a literal list, tuple or set of string literals."""
    if not isinstance(node, (ast.List, ast.Tuple, ast.Set)) or not node.elts:
        return None
    values = [e.value for e in node.elts if isinstance(e, ast.Constant)]
    if len(values) != len(node.elts) or not all(isinstance(v, str) for v in values):
        return None
    return tuple(str(v) for v in values)


def _choices(tree: ast.Module, dest: str) -> tuple[str, ...] | None:
    """`choices=` of the module's `add_argument` calls whose destination is `dest` (the
    first long option with '-' read as '_', or `dest=`); None where one has none."""
    found: list[str] = []
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "add_argument"
        ):
            continue
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        given = keywords.get("dest")
        options = [a.value for a in node.args if isinstance(a, ast.Constant)]
        longs = [o for o in options if isinstance(o, str) and o.startswith("--")]
        name = (
            given.value
            if isinstance(given, ast.Constant)
            else (longs[0][2:] if longs else str(options[0]).lstrip("-") if options else "")
        )
        if str(name).replace("-", "_") != dest:
            continue
        choices = keywords.get("choices")
        values = _strings(choices) if choices is not None else None
        if values is None:
            return None
        found += values
    return tuple(dict.fromkeys(found)) if found else None


def _dict_values(tree: ast.Module, name: str) -> tuple[str, ...] | None:
    """The values of a module-level `name = {...}` bound once, all string literals."""
    bound = [
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
    ]
    if len(bound) != 1 or not isinstance(bound[0], ast.Dict) or not bound[0].values:
        return None
    values = [v.value for v in bound[0].values if isinstance(v, ast.Constant)]
    if len(values) != len(bound[0].values) or not all(isinstance(v, str) for v in values):
        return None
    return tuple(dict.fromkeys(str(v) for v in values))
