"""Names a migration left unused: imports and `name = CONSTANT` locals (migrate/tidy.py).

ruff's F401 and F841 would report them in the migrated file: an import dp2ddp added that
nothing uses (a helper took its place), an import whose last use an edit removed (the
`torch` of a dropped `if torch.cuda.device_count() > 1:` guard), a `device = DEVICE` line
dp2ddp wrote that nothing reads, a `device = "cuda" if torch.cuda.is_available() else "cpu"`
line the program had whose reads the edits replaced with DEVICE (`model.to(device)` ->
`model.to(DEVICE)`; transforms/devices.py keeps the string itself a string). Found on the
syntax tree; a name that a string or comment of the file mentions (an annotation, a doc) is
kept, and nothing is removed from a module with a star import or `__all__`.
"""

from __future__ import annotations

import ast
import re

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import import_binding, parse_python


def drop_unused(source: str, code: str) -> str:
    """`code` without the imports and local constants the migration left unused (see the
    module docstring). Nothing is removed from a module with a star import or `__all__`."""
    try:
        original, tree = parse_python(source), parse_python(code)
    except (SyntaxError, ValueError):
        return code
    facts = _TreeNames(tree)
    if facts.star:
        return code
    lines = code.splitlines(keepends=True)
    original_lines = set(source.splitlines())
    used_before = _loaded_names(original)
    used = facts.loaded[None]
    mentioned = _words_in_strings_and_comments(code)
    if "__all__" in used | mentioned or any(_binds(n, "__all__") for n in tree.body):
        return code
    removals: dict[int, str | None] = {}  # line index -> its new text (None: removed)
    for node in tree.body:
        if not isinstance(node, ast.Import | ast.ImportFrom) or node.end_lineno != node.lineno:
            continue
        text = lines[node.lineno - 1]
        new = text.rstrip("\r\n") not in original_lines
        keep = [
            alias
            for alias in node.names
            if _bound(alias, node) in used
            or _bound(alias, node) in mentioned
            or (not new and _bound(alias, node) not in used_before)
        ]
        if len(keep) == len(node.names):
            continue
        if not keep:
            removals[node.lineno - 1] = None
        elif node.col_offset == 0 and ";" not in text and "#" not in text:
            removals[node.lineno - 1] = _import_text(node, keep) + text[len(text.rstrip()) :]
    constants = False
    for index in _unused_constants(facts, lines, original_lines, mentioned, used_before):
        removals[index] = None
        constants = True
    if not removals:
        return code
    result: list[str] = []
    for index, line in enumerate(lines):
        if index not in removals:
            result.append(line)
        elif removals[index] is not None:
            result.append(str(removals[index]))
        elif result and not result[-1].strip() and index + 1 < len(lines):
            if not lines[index + 1].strip():
                result.pop()  # no double blank line where a group was
    new_code = "".join(result)
    try:
        parse_python(new_code)
    except SyntaxError:
        return code
    # a dropped `device = "cuda" if torch.cuda.is_available() ...` may have been the last
    # reader of an import: once more on the shorter code (each round removes lines)
    return drop_unused(source, new_code) if constants else new_code


_FUNCTION = (ast.FunctionDef, ast.AsyncFunctionDef)


class _TreeNames:
    """One walk of a module's tree: whether it star-imports, the names each function reads
    (its nested functions' included; key None: the whole module), and the assignments with
    the function that holds them most closely. drop_unused walked the tree once for the
    star import, once for the module's reads, and each function once for its reads and
    once for its assignments (a nested function again for every function around it)."""

    def __init__(self, tree: ast.Module) -> None:
        self.star = False
        self.loaded: dict[ast.AST | None, set[str]] = {None: set()}
        #: (assignment, its innermost function) for assignments inside a function
        self.assignments: list[tuple[ast.Assign, ast.FunctionDef | ast.AsyncFunctionDef]] = []
        outer: dict[ast.AST, ast.AST | None] = {}  # function -> the function around it
        functions: list[ast.AST] = []
        stack: list[tuple[ast.AST, ast.FunctionDef | ast.AsyncFunctionDef | None]] = [(tree, None)]
        while stack:
            node, owner = stack.pop()
            if isinstance(node, ast.Name):
                if not isinstance(node.ctx, ast.Store):
                    self.loaded[owner].add(node.id)
            elif isinstance(node, ast.Global | ast.Nonlocal):
                self.loaded[owner].update(node.names)
            elif isinstance(node, ast.ImportFrom):
                self.star = self.star or any(a.name == "*" for a in node.names)
            elif isinstance(node, ast.Assign) and owner is not None:
                self.assignments.append((node, owner))
            inner = owner
            if isinstance(node, _FUNCTION):
                outer[node] = owner
                functions.append(node)
                self.loaded[node] = set()
                inner = node
            stack.extend((child, inner) for child in ast.iter_child_nodes(node))
        for function in reversed(functions):  # inner functions were found after outer ones
            self.loaded[outer[function]] |= self.loaded[function]


def _loaded_names(tree: ast.AST) -> set[str]:
    """Every name the code reads (`torch` of `torch.cuda`), deletes or declares global."""
    found: set[str] = set()
    for node in ast_nodes.listed(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
            found.add(node.id)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            found.update(node.names)
    return found


def _words_in_strings_and_comments(code: str) -> set[str]:
    import io
    import tokenize

    words: set[str] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type in (tokenize.STRING, tokenize.COMMENT) or token.type not in (
                tokenize.NAME,
                tokenize.OP,
                tokenize.NUMBER,
                tokenize.NEWLINE,
                tokenize.NL,
                tokenize.INDENT,
                tokenize.DEDENT,
                tokenize.ENDMARKER,
            ):
                words.update(re.findall(r"[A-Za-z_]\w*", token.string))
    except (tokenize.TokenError, SyntaxError):
        return {"__all__"}  # cannot tell: keep everything
    return words


def _binds(node: ast.stmt, name: str) -> bool:
    targets = node.targets if isinstance(node, ast.Assign) else []
    if isinstance(node, ast.AnnAssign | ast.AugAssign):
        targets = [node.target]
    return any(isinstance(t, ast.Name) and t.id == name for t in targets)


def _bound(alias: ast.alias, node: ast.Import | ast.ImportFrom) -> str:
    if isinstance(node, ast.Import):
        return import_binding(alias)[0]
    return alias.asname or alias.name


def _import_text(node: ast.Import | ast.ImportFrom, keep: list[ast.alias]) -> str:
    names = ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in keep)
    if isinstance(node, ast.Import):
        return f"import {names}"
    return f"from {'.' * node.level}{node.module or ''} import {names}"


def _unused_constants(
    facts: _TreeNames,
    lines: list[str],
    original_lines: set[str],
    mentioned: set[str],
    used_before: set[str],
) -> list[int]:
    """Lines dp2ddp wrote in a function that bind a local to a name (`device = DEVICE`)
    that nothing in the function reads: ruff's F841. Also the program's own device string
    choice, read before the migration and by nothing after it: without side effects, so
    dropping it changes nothing but the lint. Each assignment is judged by the function
    that holds it most closely: the functions around it read all that one reads."""
    found = []
    for node, function in facts.assignments:
        loaded = facts.loaded[function]
        if loaded & {"locals", "vars", "eval", "exec"}:
            continue
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Name)
            and node.value.id.isupper()  # dp2ddp's constants (DEVICE): no side effect
            and node.lineno == node.end_lineno
            and node.targets[0].id not in loaded
            and node.targets[0].id not in mentioned
        ):
            text = lines[node.lineno - 1]
            if text.rstrip("\r\n") not in original_lines and text.strip().endswith(node.value.id):
                found.append(node.lineno - 1)
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and _device_string(node.value)
            and node.lineno == node.end_lineno
            and node.targets[0].id in used_before
            and node.targets[0].id not in loaded
            and node.targets[0].id not in mentioned
        ):
            found.append(node.lineno - 1)
    return found


_DEVICE_STRING = re.compile(r"^(cuda(:\d+)?|cpu)$")


def _device_string(node: ast.expr) -> bool:
    """`"cuda:0"`, or `"cuda" if torch.cuda.is_available() else "cpu"` (either order, `not`):
    a value whose computation has no side effect."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and bool(_DEVICE_STRING.match(node.value))
    if not isinstance(node, ast.IfExp):
        return False
    test = node.test.operand if isinstance(node.test, ast.UnaryOp) else node.test
    return (
        isinstance(test, ast.Call)
        and not test.args
        and isinstance(test.func, ast.Attribute)
        and test.func.attr == "is_available"
        and _device_string(node.body)
        and _device_string(node.orelse)
    )
