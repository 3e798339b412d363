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
* `wrap_long_lines`: a line dp2ddp wrote (one that is not in the original) longer than the
  project's line length (migrate/line_length.py: its ruff, black, flake8 or editorconfig
  setting, 88 when none) is split the way black splits (the last bracket's contents on
  their own lines, one argument per line when they do not fit on one; a conditional
  expression in parentheses). A split that does not give the same syntax tree is not made.
  An added `from` import longer than the width is wrapped as isort wraps it.

* `drop_unused`: an import the migration left unused (dp2ddp added it, or the original
  used the name and the migration removed its last use, as in a dropped
  `if torch.cuda.device_count() > 1:` guard), and a local `name = CONSTANT` line dp2ddp
  wrote whose name nothing reads, are removed: ruff's F401 and F841 would report them.
  A name that any string or comment of the file mentions is kept (an annotation, a doc).

Both follow the project's width, never a width of their own: a ruff-formatted project at
88 columns stays within 88 (tests/test_lint_clean.py runs ruff on migrated projects). The
formatters themselves are not run: dp2ddp needs none of them installed.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass

#: black's, ruff's and isort's default line length: the width when the project sets none.
DEFAULT_WIDTH = 88
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


# -- unused names ---------------------------------------------------------------------------
def drop_unused(source: str, code: str) -> str:
    """`code` without the imports and local constants the migration left unused (see the
    module docstring). Nothing is removed from a module with a star import or `__all__`."""
    try:
        original, tree = ast.parse(source), ast.parse(code)
    except (SyntaxError, ValueError):
        return code
    if any(
        isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names)
        for n in ast.walk(tree)
    ):
        return code
    lines = code.splitlines(keepends=True)
    original_lines = set(source.splitlines())
    used_before = _loaded_names(original)
    used = _loaded_names(tree)
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
    for function in ast.walk(tree):
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            for index in _unused_constants(function, lines, original_lines, mentioned):
                removals[index] = None
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
        ast.parse(new_code)
    except SyntaxError:
        return code
    return new_code


def _loaded_names(tree: ast.AST) -> set[str]:
    """Every name the code reads (`torch` of `torch.cuda`), deletes or declares global."""
    found: set[str] = set()
    for node in ast.walk(tree):
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
    if alias.asname:
        return alias.asname
    return alias.name.split(".")[0] if isinstance(node, ast.Import) else alias.name


def _import_text(node: ast.Import | ast.ImportFrom, keep: list[ast.alias]) -> str:
    names = ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in keep)
    if isinstance(node, ast.Import):
        return f"import {names}"
    return f"from {'.' * node.level}{node.module or ''} import {names}"


def _unused_constants(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    lines: list[str],
    original_lines: set[str],
    mentioned: set[str],
) -> list[int]:
    """Lines dp2ddp wrote in `function` that bind a local to a name (`device = DEVICE`)
    that nothing in the function reads: ruff's F841."""
    loaded = _loaded_names(function)
    if loaded & {"locals", "vars", "eval", "exec"}:
        return []
    found = []
    for node in ast.walk(function):
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
    return found


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
        original_tree, tree = ast.parse(source), ast.parse(code)
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
        if _import_set(ast.parse(new)) != _import_set(tree):
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


# -- long lines -----------------------------------------------------------------------------
def wrap_long_lines(source: str, code: str, width: int = DEFAULT_WIDTH) -> str:
    """Split the lines dp2ddp wrote that are longer than `width`."""
    limit = width
    original = set(source.splitlines())
    lines = code.splitlines(keepends=True)
    long = [
        i
        for i, line in enumerate(lines)
        if len(line.rstrip("\r\n")) > limit and line.rstrip("\r\n") not in original
    ]
    if not long:
        return code
    try:
        reference = ast.dump(ast.parse(code))
    except SyntaxError:
        return code
    inside = _continuation_lines(code)
    floor = len(lines)
    for index in reversed(long):
        if index >= floor:
            continue  # part of a statement already re-wrapped whole
        start, end = index, index
        while start + 1 in inside and start > 0:
            start -= 1
        while end + 2 in inside and end + 1 < len(lines):
            end += 1
        text = lines[index].rstrip("\r\n")
        newline = lines[index][len(text) :]
        if end > start:
            # A statement over several lines (a call that already spanned lines, edited):
            # joined and split again as a whole, as black would, never one line of it.
            split = _rewrap_statement(
                [line.rstrip("\r\n") for line in lines[start : end + 1]], limit
            )
        else:
            split = _split(text, limit, index + 1 in inside)
        if split is None:
            continue
        trial = [*lines[:start], *(part + newline for part in split), *lines[end + 1 :]]
        try:
            same = ast.dump(ast.parse("".join(trial))) == reference
        except SyntaxError:
            same = False
        if same:
            lines = trial
            floor = start
    return "".join(lines)


def _rewrap_statement(parts: list[str], limit: int) -> list[str] | None:
    """The physical lines of one statement joined into one line, then split to `limit`
    (None if it holds a comment or a backslash, which a join would lose or break)."""
    if any(part.rstrip().endswith("\\") for part in parts):
        return None
    joined = parts[0].rstrip()
    for part in parts[1:]:
        piece = part.strip()
        if joined.endswith(tuple(_OPEN)) or piece.startswith(tuple(_CLOSE)):
            joined += piece
        else:
            joined += " " + piece
    scan = _scan(joined)
    if scan is None or scan.comment is not None or scan.unbalanced:
        return None
    magic = re.search(r",\s*[)\]}]", joined) is not None  # black keeps such a call exploded
    if len(joined) <= limit and not magic:
        return [joined]
    return _split(joined, limit, False)


def _continuation_lines(code: str) -> set[int]:
    """Numbers of the lines that start inside brackets (or after a backslash)."""
    import io
    import tokenize

    inside: set[int] = set()
    depth = 0
    row = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.start[0] != row:
                for line in range(row + 1, token.start[0] + 1):
                    if depth > 0:
                        inside.add(line)
                row = token.end[0]
            if token.type == tokenize.OP and token.string in "([{":
                depth += 1
            elif token.type == tokenize.OP and token.string in ")]}":
                depth -= 1
            row = max(row, token.end[0])
    except (tokenize.TokenError, SyntaxError):
        return inside
    return inside


@dataclass(frozen=True)
class _Scan:
    """Where a line's brackets, depth-0 commas, comment and ` if `/` else ` are."""

    pairs: dict[int, int]  # closing bracket -> its opening bracket (brackets of this line)
    commas: list[int]  # commas outside every bracket opened on this line
    comment: int | None
    unbalanced: bool


_OPEN, _CLOSE = "([{", ")]}"


def _scan(text: str) -> _Scan | None:
    pairs: dict[int, int] = {}
    stack: list[int] = []
    commas: list[int] = []
    unbalanced = False
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "#":
            return _Scan(pairs, commas, i, unbalanced or bool(stack))
        if ch in "\"'":
            end = _string_end(text, i)
            if end is None:
                return None
            i = end
            continue
        if ch in _OPEN:
            stack.append(i)
        elif ch in _CLOSE:
            if stack:
                pairs[i] = stack.pop()
            else:
                unbalanced = True
        elif ch == "," and not stack:
            commas.append(i)
        i += 1
    return _Scan(pairs, commas, None, unbalanced or bool(stack))


def _string_end(text: str, start: int) -> int | None:
    quote = text[start]
    triple = text[start : start + 3] == quote * 3
    token = quote * 3 if triple else quote
    i = start + len(token)
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text.startswith(token, i):
            return i + len(token)
        i += 1
    return None


def _indent_of(text: str) -> str:
    return text[: len(text) - len(text.lstrip())]


def _split(text: str, limit: int, continuation: bool) -> list[str] | None:
    """`text` split into lines of at most `limit` characters, or None."""
    scan = _scan(text)
    if scan is None:
        return None
    if scan.comment is not None:
        return _split_commented(text, scan.comment, limit, continuation)
    if continuation:
        # A line inside brackets that is one conditional expression or one string (a
        # message indented under a new `if ddp_is_main():`): black's split of the first,
        # the second cut at spaces into implicitly concatenated pieces (the same string).
        for candidate in (_split_inner_conditional(text), _split_string(text, limit)):
            if candidate is not None and all(len(line) <= limit for line in candidate):
                return candidate
        # A line inside brackets: after its commas, else (one long argument, as an
        # inserted `batch_sampler=DdpBatchShard(...),`) black's right-hand split of it.
        split = _split_at_commas(text, limit)
        if split is None and not scan.unbalanced:
            candidate = _split_last_bracket(text, limit)
            if candidate is not None and all(len(line) <= limit for line in candidate):
                return candidate
        return split
    if scan.unbalanced:
        return None
    if text.startswith("from ") and " import " in text and "(" not in text:
        head, _, names = text.partition(" import ")
        members = [name.strip() for name in names.split(",")]
        return [f"{head} import (", *(f"{_INDENT}{name}," for name in members), ")"]
    for candidate in (
        _split_conditional(text, limit),
        _split_last_bracket(text, limit),
        _split_widest_bracket(text, limit),
    ):
        if candidate is not None and all(len(line) <= limit for line in candidate):
            return candidate
    return None


def _split_commented(text: str, at: int, limit: int, continuation: bool) -> list[str] | None:
    """`code  # comment`: the code split as black splits it, the comment after its last
    line (where black keeps a trailing comment)."""
    code, comment = text[:at].rstrip(), text[at:]
    if not code.strip():
        return None  # a comment line: dp2ddp's own are written short
    split = _split(code, limit, continuation)
    if split is None or _scan(split[-1]) is None:
        return None
    return [*split[:-1], f"{split[-1]}  {comment}"]


def _split_inner_conditional(text: str) -> list[str] | None:
    """`A if c else B` alone on a line inside brackets -> three lines, as black splits it."""
    stripped = text.strip()
    try:
        expr = ast.parse(stripped, mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(expr, ast.IfExp):
        return None
    pieces = [
        ast.get_source_segment(stripped, expr.body),
        ast.get_source_segment(stripped, expr.test),
        ast.get_source_segment(stripped, expr.orelse),
    ]
    if any(p is None for p in pieces):
        return None
    indent = _indent_of(text)
    return [f"{indent}{pieces[0]}", f"{indent}if {pieces[1]}", f"{indent}else {pieces[2]}"]


_STRING = re.compile(
    r"""(?P<prefix>[rRbBuUfF]{0,2})(?P<quote>["'])(?P<body>.*)(?P=quote)(?P<tail>,?)"""
)


def _split_string(text: str, limit: int) -> list[str] | None:
    """A string literal alone on a line inside brackets, cut after spaces into pieces that
    fit (implicit concatenation: the same string; in an f-string never inside braces)."""
    indent = _indent_of(text)
    match = _STRING.fullmatch(text.strip())
    if match is None:
        return None
    prefix, quote, body, tail = (match.group(k) for k in ("prefix", "quote", "body", "tail"))
    if quote in body.replace("\\\\", "").replace("\\" + quote, ""):
        return None  # several literals on the line already
    room = limit - len(indent) - len(prefix) - 2
    pieces: list[str] = []
    rest = body
    while len(rest) > room:
        cut = _string_cut(rest, room, "f" in prefix.lower())
        if cut is None:
            return None
        pieces.append(rest[:cut])
        rest = rest[cut:]
    pieces.append(rest)
    if len(pieces) < 2:
        return None
    # A piece of an f-string without braces is a plain string (ruff's F541 otherwise).
    lines = [
        f"{indent}{_plain(prefix) if not set(piece) & set('{}') else prefix}{quote}{piece}{quote}"
        for piece in pieces
    ]
    lines[-1] += tail
    return lines


def _plain(prefix: str) -> str:
    return prefix.replace("f", "").replace("F", "")


def _string_cut(body: str, room: int, formatted: bool) -> int | None:
    """The end of the longest first piece of `body` (after a space, outside braces and
    escapes) that fits in `room` characters."""
    depth, best, i = 0, None, 0
    while i < len(body) and i < room:
        ch = body[i]
        if ch == "\\":
            i += 2
            continue
        if formatted and ch in "{}":
            if body[i : i + 2] in ("{{", "}}"):
                i += 2
                continue
            depth += 1 if ch == "{" else -1
        elif ch == " " and depth == 0 and i + 1 <= room:
            best = i + 1
        i += 1
    return best if best is not None and best < len(body) else None


def _split_widest_bracket(text: str, limit: int) -> list[str] | None:
    """`with (A if c else B) as w:` -> `with (`, its contents, `) as w:`: the widest pair."""
    scan = _scan(text)
    if scan is None or not scan.pairs:
        return None
    close, opening = max(scan.pairs.items(), key=lambda pair: pair[0] - pair[1])
    head, body = text[: opening + 1], text[opening + 1 : close].strip()
    indent = _indent_of(text)
    inner = indent + _INDENT
    tail = indent + text[close:].strip()
    if not body or len(head) > limit:
        return None
    if len(inner) + len(body) <= limit:
        return [head, inner + body, tail]
    try:
        expr = ast.parse(body, mode="eval").body
    except SyntaxError:
        expr = None  # arguments: `x, key=value` is no expression
    if not isinstance(expr, ast.IfExp):
        # one element per line (`return DataLoader(a, b=..., c=...), other`)
        parts = _elements(body)
        if parts is None or len(parts) < 2:
            return None
        return [head, *(f"{inner}{part}," for part in parts), tail]
    pieces = [
        ast.get_source_segment(body, expr.body),
        "if " + (ast.get_source_segment(body, expr.test) or ""),
        "else " + (ast.get_source_segment(body, expr.orelse) or ""),
    ]
    if pieces[0] is None:
        return None
    return [head, *(inner + str(piece) for piece in pieces), tail]


def _split_last_bracket(text: str, limit: int) -> list[str] | None:
    """black's right-hand split: `head(` / the contents / `)tail`, nested as needed."""
    content = text.rstrip()
    suffix = ""
    if content.endswith((":", ",")):
        content, suffix = content[:-1], content[-1]
    scan = _scan(content)
    if scan is None or scan.unbalanced or not content or content[-1] not in _CLOSE:
        return None
    close = len(content) - 1
    opening = scan.pairs.get(close)
    if opening is None:
        return None
    head, body = content[: opening + 1], content[opening + 1 : close].strip()
    if not body or len(head) > limit:
        return None
    indent = _indent_of(text)
    inner = indent + _INDENT
    tail = content[close:] + suffix
    if len(inner) + len(body) <= limit and not body.endswith(","):
        return [head, inner + body, indent + tail]
    pieces = _split_string(inner + body, limit)
    if pieces is not None:  # one long string: `print(f"...")`
        return [head, *pieces, indent + tail]
    parts = _elements(body)
    if parts is None:
        return None
    lines = [head]
    for part in parts:
        line = inner + part + ","
        if len(line) > limit:
            nested = _split_conditional(line, limit) or _split_last_bracket(line, limit)
            if nested is None:
                return None
            lines += nested
        else:
            lines.append(line)
    return [*lines, indent + tail]


def _elements(body: str) -> list[str] | None:
    scan = _scan(body)
    if scan is None or scan.unbalanced:
        return None
    cuts = [-1, *scan.commas, len(body)]
    parts = [body[a + 1 : b].strip() for a, b in zip(cuts, cuts[1:], strict=False)]
    return [p for p in parts if p] or None


def _split_conditional(text: str, limit: int) -> list[str] | None:
    """`target = A if c else B` (or `return ...`) -> `target = (`, the parts, `)`."""
    indent = _indent_of(text)
    stripped = text.strip()
    close = ")"
    keyword = re.match(r"[A-Za-z_]\w*=(?!=)", stripped)
    if stripped.endswith(","):  # an argument: `(A if c else B),`, `name=(A if c else B),`
        lead = keyword.group(0) if keyword else ""
        head, rhs, close = indent + lead + "(", stripped[len(lead) : -1], "),"
    elif stripped.startswith("return "):
        head, rhs = indent + "return (", stripped[len("return ") :]
    else:
        try:
            node = ast.parse(stripped).body[0]
        except (SyntaxError, IndexError):
            return None
        if not isinstance(node, ast.Assign | ast.AnnAssign) or node.value is None:
            return None
        if not isinstance(node.value, ast.IfExp):
            return None
        cut = stripped.find(" = ")
        if cut < 0:
            return None
        head, rhs = indent + stripped[: cut + 3] + "(", stripped[cut + 3 :]
    try:
        expr = ast.parse(rhs, mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(expr, ast.IfExp):
        return None
    inner = indent + _INDENT
    if len(inner) + len(rhs) <= limit:
        return [head, inner + rhs, indent + close]
    pieces = [
        ast.get_source_segment(rhs, expr.body),
        "if " + (ast.get_source_segment(rhs, expr.test) or ""),
        "else " + (ast.get_source_segment(rhs, expr.orelse) or ""),
    ]
    if pieces[0] is None:
        return None
    lines = [head]
    for piece in pieces:
        line = inner + str(piece)
        if len(line) > limit:
            nested = _split_last_bracket(line, limit)
            if nested is None:
                return None
            lines += nested
        else:
            lines.append(line)
    return [*lines, indent + close]


def _split_at_commas(text: str, limit: int) -> list[str] | None:
    """A line inside brackets: break it after commas, each new line at its indentation."""
    indent = _indent_of(text)
    lines: list[str] = []
    current = text
    while len(current) > limit:
        scan = _scan(current)
        if scan is None or scan.comment is not None:
            return None
        usable = [c for c in scan.commas if len(indent) < c and c + 1 <= limit]
        if not usable:
            return None
        cut = usable[-1]
        lines.append(current[: cut + 1].rstrip())
        current = indent + current[cut + 1 :].lstrip()
    lines.append(current)
    return lines
