"""Keep a migration lint-clean where the original was: import order and line length.

Two touches on the final code of a migration, both only where dp2ddp changed the file:

* `place_imports`: the imports dp2ddp added (libcst appends them after the last one) go
  where an import sorter puts them, as ruff's isort does by default: sections (`__future__`,
  standard library, third party and first party, relative) separated by one blank line, in
  each section `import x` lines before `from x import y` lines, each sorted by module name
  (case-insensitive), the names of a `from` import by type (CONSTANTS, Classes, functions).
  Only when the original's leading imports already follow that order: otherwise dp2ddp's
  appended order stays, and no line of the user's moves. Past a star import (which may
  bind what a later import rebinds) nothing moves: the added imports stay after it,
  sorted as a block of their own behind `# isort: split`.
* `wrap_long_lines` (migrate/wrapping.py): a line dp2ddp wrote (one that is not in the
  original) longer than the project's line length (migrate/line_length.py: its ruff,
  black, flake8 or editorconfig setting, 88 when none) is split the way black splits (the
  last bracket's contents on their own lines, one argument per line when they do not fit
  on one; a conditional expression in parentheses; a statement over several lines as a
  whole). A split that does not give the same syntax tree is not made.
  An added `from` import longer than the width is wrapped as isort wraps it.

* `drop_unused` (migrate/unused.py): an import the migration left unused (dp2ddp added
  it, or the original used the name and the migration removed its last use, as in a dropped
  `if torch.cuda.device_count() > 1:` guard), and a local `name = CONSTANT` line dp2ddp
  wrote whose name nothing reads, are removed: ruff's F401 and F841 would report them.
  A name that any string or comment of the file mentions is kept (an annotation, a doc).

Both follow the project's width, never a width of their own: a ruff-formatted project at
88 columns stays within 88 (tests/test_lint_clean.py runs ruff on migrated projects). The
formatters themselves are not run: dp2ddp needs none of them installed.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass

from dp2ddp.migrate.unused import drop_unused
from dp2ddp.migrate.wrapping import DEFAULT_WIDTH, wrap_long_lines
from dp2ddp.transforms._support.ast_nodes import parse_python

_INDENT = "    "


def tidy(
    source: str, code: str, width: int = DEFAULT_WIDTH, helpers_first_party: bool = True
) -> str:
    """`code` (the migration of `source`) with its added imports sorted in and its new lines
    longer than `width` wrapped. Never changes what the code does (checked on the syntax
    tree)."""
    if code == source:
        return code
    code = drop_unused(source, code)
    placed = place_imports(source, code, width, helpers_first_party)
    return wrap_long_lines(source, placed, width)


# -- imports --------------------------------------------------------------------------------
FUTURE, STDLIB, OTHER, FIRST_PARTY, LOCAL = range(5)
#: The module dp2ddp generates beside a program's entry: first party.
GENERATED_MODULE = "_dp2ddp"


@dataclass
class _Unit:
    """One import statement of the leading block, with the comment lines right above it."""

    node: ast.Import | ast.ImportFrom
    lines: list[str]  # without line ends
    statement: str  # the statement's own text (no comments above), to match the original
    helpers_first_party: bool = True

    @property
    def category(self) -> int:
        found = category(self.node)
        return OTHER if found == FIRST_PARTY and not self.helpers_first_party else found

    @property
    def key(self) -> tuple[int, str, str]:
        return sort_key(self.node)


def category(node: ast.Import | ast.ImportFrom) -> int:
    if isinstance(node, ast.ImportFrom):
        if node.level:
            return LOCAL
        module = node.module or ""
    else:
        module = node.names[0].name
    top = module.split(".")[0]
    if top == "__future__":
        return FUTURE
    if top in sys.stdlib_module_names:
        return STDLIB
    if module.split(".")[-1] == GENERATED_MODULE:  # `_dp2ddp`, `pkg._dp2ddp`
        return FIRST_PARTY
    return OTHER


def sort_key(node: ast.Import | ast.ImportFrom) -> tuple[int, str, str]:
    """ruff's isort order inside a section (force-sort-within-sections off)."""
    if isinstance(node, ast.Import):
        name = node.names[0].name
        return (0, name.lower(), name)
    module = "." * node.level + (node.module or "")
    return (1, module.lower(), module)


def member_key(name: str) -> tuple[int, str, str]:
    """order-by-type: CONSTANTS, then Classes, then the rest; each case-insensitively."""
    kind = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    return (kind, name.lower(), name)


def _leading_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    body = tree.body
    start = 1 if body and _is_docstring(body[0]) else 0
    found: list[ast.Import | ast.ImportFrom] = []
    for node in body[start:]:
        if not isinstance(node, ast.Import | ast.ImportFrom):
            break
        found.append(node)
    return found


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _groups(text_lines: list[str], nodes: list[ast.Import | ast.ImportFrom]) -> list[list[_Unit]]:
    """The block's units grouped by blank lines. Raises ValueError for what the model does
    not cover (two statements on a line, a comment not right above a statement)."""
    groups: list[list[_Unit]] = [[]]
    line = nodes[0].lineno
    for node in nodes:
        end = node.end_lineno or node.lineno
        if node.lineno < line:
            raise ValueError("statements share a line")
        between = text_lines[line - 1 : node.lineno - 1]
        comments: list[str] = []
        for text in between:
            if not text.strip():
                if comments:
                    raise ValueError("a comment apart from the imports")
                if groups[-1]:
                    groups.append([])
            elif text.lstrip().startswith("#"):
                comments.append(text)
            else:
                raise ValueError("unexpected text in the import block")
        own = text_lines[node.lineno - 1 : end]
        if not own or (node.col_offset != 0):
            raise ValueError("not a plain top-level import line")
        groups[-1].append(_Unit(node, comments + own, "\n".join(own).rstrip()))
        line = end + 1
    return [g for g in groups if g]


def _sorted_like_isort(groups: list[list[_Unit]]) -> bool:
    last = FUTURE
    for group in groups:
        kinds = {min(u.category, OTHER) if u.category == FIRST_PARTY else u.category for u in group}
        if len(kinds) != 1:
            return False
        (kind,) = kinds
        if kind < last:
            return False
        last = kind
        keys = [u.key for u in group]
        if keys != sorted(keys):
            return False
        for unit in group:
            node = unit.node
            if isinstance(node, ast.Import) and len(node.names) > 1:
                return False
            if isinstance(node, ast.ImportFrom):
                names = [a.name for a in node.names]
                if names != sorted(names, key=member_key):
                    return False
    return True


def place_imports(
    source: str, code: str, width: int = DEFAULT_WIDTH, helpers_first_party: bool = True
) -> str:
    """Move the imports dp2ddp added into isort's places (see the module docstring)."""
    try:
        original_tree, tree = parse_python(source), parse_python(code)
    except (SyntaxError, ValueError):
        return code
    original_nodes, nodes = _leading_imports(original_tree), _leading_imports(tree)
    if not original_nodes or not nodes:
        return code
    star = any(a.name == "*" for n in nodes for a in n.names)
    original_lines, lines = source.splitlines(), code.splitlines(keepends=True)
    bare = [line.rstrip("\r\n") for line in lines]
    try:
        original_groups = _groups(original_lines, original_nodes)
        groups = _groups(bare, nodes)
    except ValueError:
        return code
    if not _sorted_like_isort(original_groups):
        return code
    for unit in (u for g in groups for u in g):
        unit.helpers_first_party = helpers_first_party
    known = {u.statement for g in original_groups for u in g}
    kept = [[u for u in g if u.statement in known] for g in groups]
    added = [u for g in groups for u in g if u.statement not in known]
    if not added:
        return code
    newline = lines[0][len(bare[0]) :] or "\n"
    if star:
        # A star import may bind what a later import rebinds, so nothing crosses it: the
        # added imports (all after it) stay after it, sorted as a block of their own
        # behind `# isort: split`, which isort and ruff's isort sort separately.
        units = [u for g in groups for u in g]
        last_star = max(i for i, u in enumerate(units) if any(a.name == "*" for a in u.node.names))
        if any(units.index(u) < last_star for u in added):
            return code
        tail: list[list[_Unit]] = []
        for unit in added:
            _sort_members(unit, width)
            _insert(tail, unit)
        if not _sorted_like_isort(tail):
            return code
        block = newline.join(
            [_block([g for g in kept if g], newline), "", "# isort: split", _block(tail, newline)]
        )
    else:
        result = [g for g in kept if g]
        for unit in added:
            _sort_members(unit, width)
            _insert(result, unit)
        if not _sorted_like_isort(result):
            return code
        block = _block(result, newline)
    first = nodes[0].lineno - 1  # comments above the block stay where they are
    last = nodes[-1].end_lineno or nodes[-1].lineno
    after = lines[last:]
    following = next((line.strip() for line in after if line.strip()), "")
    if following and following not in {line.strip() for line in original_lines}:
        # dp2ddp's own statement follows the imports (`ddp_setup()`): isort's spacing,
        # two blank lines before a def or class, one before anything else
        blank = 2 if following.startswith(("def ", "class ", "@", "async def ")) else 1
        gap = next((i for i, line in enumerate(after) if line.strip()), 0)
        if not following.startswith("#"):
            after = [newline] * blank + after[gap:]
    new = "".join(lines[:first]) + block + newline + "".join(after)
    try:
        if _import_set(parse_python(new)) != _import_set(tree):
            return code
    except SyntaxError:
        return code
    return new


def _block(groups: list[list[_Unit]], newline: str) -> str:
    return (newline * 2).join(newline.join(line for u in g for line in u.lines) for g in groups)


def _import_set(tree: ast.Module) -> list[str]:
    """The program minus the import order: what the leading imports bind (sorted), then the
    rest of the module in order."""
    leading = _leading_imports(tree)
    imports = sorted(
        repr(
            (
                getattr(n, "module", None),
                getattr(n, "level", None),
                sorted((a.name, a.asname or "") for a in n.names),
            )
        )
        for n in leading
    )
    rest = [ast.dump(n) for n in tree.body if n not in leading]
    return [*imports, "--", *rest]


def _sort_members(unit: _Unit, width: int) -> None:
    node = unit.node
    if not isinstance(node, ast.ImportFrom) or len(node.names) < 2 or len(unit.lines) != 1:
        return
    line = unit.lines[0]
    head, sep, names = line.partition(" import ")
    if not sep or "(" in names or "#" in names:
        return
    members = [n.strip() for n in names.split(",")]
    ordered = sorted(members, key=lambda m: member_key(m.split(" as ")[0]))
    line = f"{head} import {', '.join(ordered)}"
    try:
        (parsed,) = ast.parse(line).body
    except (SyntaxError, ValueError):
        return
    if isinstance(parsed, ast.ImportFrom):
        unit.node, unit.lines = parsed, [line]
        if len(line) > width:  # isort's wrapping: one name per line, a trailing comma
            unit.lines = [f"{head} import (", *(f"{_INDENT}{m}," for m in ordered), ")"]


def _insert(groups: list[list[_Unit]], unit: _Unit) -> None:
    """Into the group of its section (a new group where there is none), at its sorted place."""
    kind = unit.category

    def section(group: list[_Unit]) -> int:
        return group[0].category

    others = [i for i, g in enumerate(groups) if section(g) in (OTHER, FIRST_PARTY)]
    target: int | None = None
    if kind in (FUTURE, STDLIB, LOCAL):
        target = next((i for i, g in enumerate(groups) if section(g) == kind), None)
    elif kind == OTHER and others:
        top = _top(unit.node)
        with_top = [i for i in others if any(_top(u.node) == top for u in groups[i])]
        target = with_top[0] if with_top else others[0]
    elif kind == FIRST_PARTY and len(others) > 1:
        target = others[-1]
    elif kind == FIRST_PARTY and others and not _third_party(groups[others[-1]]):
        target = others[-1]  # `from models import Net`: the project's own section
    if target is None:
        rank = {FUTURE: 0, STDLIB: 1, OTHER: 2, FIRST_PARTY: 3, LOCAL: 4}
        where = next((i for i, g in enumerate(groups) if rank[section(g)] > rank[kind]), None)
        groups.insert(len(groups) if where is None else where, [unit])
        return
    group = groups[target]
    at = next((i for i, u in enumerate(group) if unit.key < u.key), len(group))
    group.insert(at, unit)


#: Packages a training script commonly imports: a section holding one is third party.
_THIRD_PARTY = frozenset(
    "torch torchvision torchaudio torchtext numpy scipy sklearn pandas tqdm PIL cv2 yaml "
    "matplotlib transformers datasets accelerate timm einops wandb tensorboardX tensorboard "
    "h5py tensorflow jax apex lightning pytorch_lightning hydra omegaconf".split()
)


def _third_party(group: list[_Unit]) -> bool:
    return any(_top(u.node) in _THIRD_PARTY for u in group)


def _top(node: ast.Import | ast.ImportFrom) -> str:
    if isinstance(node, ast.ImportFrom):
        return (node.module or "").split(".")[0]
    return node.names[0].name.split(".")[0]
