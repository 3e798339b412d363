"""Paths the barrier planning cannot match by their text (barriers.py), matched by their
shape, or judged as maybe naming the same file (issue 29).

path_texts.py matches a rank-0 write and every rank's later read of one file by the path's
text. Three spellings name one file in a way the text does not show:

- a path built from a loop variable: `for split in splits: np.save(f"{split}.npy", ...)`, read
  back by `for name in splits: np.load(f"{name}.npy")`. Each name a `for` (or a
  comprehension) around the call binds is replaced by what it iterates (`loop_pattern`): the
  two paths then read alike, and the write gets its barrier;
- a path spelled out (concrete_paths: literals, f-strings, `+`, os.path.join, the module's
  string constants): a loop over a list of strings writes each of them
  (`for split in SPLITS: np.save(f"{split}.npy", ...)` writes `train.npy`, which
  `np.load("train.npy")` reads); a loop over anything else writes a wildcard (`*.npy`) a
  read may match (DP066), and two spelled-out paths that differ are never one file;
- a listing of the directory the write goes into (`glob.glob(os.path.join(OUT, "*.npy"))`,
  `os.listdir(OUT)`, `Path(OUT).glob("*.npy")`, `.iterdir()`): a rank that lists before
  rank 0 has written sees a part of the files, or none (`listed_directory`);
- the rest, which no text can settle: the same helper called with other arguments
  (`cache_file(a)` then `cache_file(b)`), the same attribute or item of another object
  (`self.out` then `cfg.out`, `paths["cache"]` then `opts["cache"]`), a loop over another
  iterable. `may_name_same` says these may be one file: DP066 names the write and the read,
  as no barrier is placed. Paths taken as apart are not: another extension at the end, or the
  same helper (`os.path.join` too) given two other literals in one place (`cache_file("a")`,
  `cache_file("b")`: a helper that ignores what tells its files apart is not assumed).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable

import libcst as cst

from dp2ddp.transforms._support.nodes import NodeView, walk

#: Listing calls: the directory (or pattern) is their first argument.
LISTINGS = frozenset({"os.listdir", "os.scandir", "glob.glob", "glob.iglob"})
#: A pathlib path's listing methods (`Path(d).glob("*.npy")`): the directory is the object.
PATH_LISTINGS = frozenset({"glob", "rglob", "iterdir"})
#: A name a loop binds, in a pattern: replaced by `LOOP_NAME` and the iterable's number.
LOOP_NAME = "__dp2ddp_in_"
_PLACEHOLDER = re.compile(rf"{LOOP_NAME}\d+__")
#: The extension a path's text ends with (`f"{split}.npy"`, `os.path.join(d, "a.pkl")`).
_SUFFIX = re.compile(r"\.([A-Za-z0-9_]{1,10})[\"']\)*$")


def loop_pattern(
    text: str,
    site: cst.CSTNode,
    view: NodeView,
    code: Callable[[cst.CSTNode], str],
    iterables: dict[str, int],
) -> str | None:
    """A path's text (as path_texts.py gives it for `site`) with each name bound by a loop
    around `site` replaced by a placeholder for the loop's iterable (numbered in `iterables`,
    shared by the module's paths); None when no loop binds a name of it."""
    bound = _loop_names(site, view, code)
    if not bound:
        return None
    path = _parsed(text)
    if path is None:
        return None
    used = {n.value for n in walk(path) if isinstance(n, cst.Name)} & set(bound)
    if not used:
        return None
    numbers = {name: iterables.setdefault(bound[name], len(iterables)) for name in used}
    names = {name: f"{LOOP_NAME}{number}__" for name, number in numbers.items()}
    replaced = path.visit(_Replace(names))
    return code(replaced) if isinstance(replaced, cst.CSTNode) else None


def wildcard(text: str) -> str:
    """A pattern's text with every loop placeholder alike: two loops over other iterables."""
    return _PLACEHOLDER.sub(LOOP_NAME, text)


def _loop_names(
    site: cst.CSTNode, view: NodeView, code: Callable[[cst.CSTNode], str]
) -> dict[str, str]:
    """Name -> the text of what the innermost loop binding it around `site` iterates
    (`enumerate(xs)[1]` for `name` of `for i, name in enumerate(xs)`): `for` statements in
    its function, and the comprehension `site` is in."""
    return {name: code(node) + where for name, (node, where) in _loops(site, view).items()}


def _loops(site: cst.CSTNode, view: NodeView) -> dict[str, tuple[cst.BaseExpression, str]]:
    """Name -> (what the innermost loop binding it around `site` iterates, "" for the loop's
    target itself or `[i]` for the i-th name of a tuple target)."""
    found: dict[str, tuple[cst.BaseExpression, str]] = {}
    child, parent = site, view.parent(site)
    while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Module)):
        loops: list[tuple[cst.BaseAssignTargetExpression, cst.BaseExpression]] = []
        if isinstance(parent, cst.For) and child is parent.body:
            loops.append((parent.target, parent.iter))
        elif isinstance(parent, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            comp: cst.CompFor | None = parent.for_in
            while comp is not None:
                loops.append((comp.target, comp.iter))
                comp = comp.inner_for_in
        for target, iterable in loops:
            for name, where in _targets(target, ""):
                found.setdefault(name, (iterable, where))
        child, parent = parent, view.parent(parent)
    return found


def _targets(target: cst.BaseExpression, where: str) -> list[tuple[str, str]]:
    if isinstance(target, cst.Name):
        return [(target.value, where)]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [
            pair
            for index, element in enumerate(target.elements)
            for pair in _targets(element.value, f"{where}[{index}]")
        ]
    return []


class _Replace(cst.CSTTransformer):
    def __init__(self, names: dict[str, str]) -> None:
        super().__init__()
        self.names = names

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        new = self.names.get(original_node.value)
        return updated_node.with_changes(value=new) if new is not None else updated_node

    def leave_Attribute(
        self, original_node: cst.Attribute, updated_node: cst.Attribute
    ) -> cst.Attribute:
        return updated_node.with_changes(attr=original_node.attr)  # `x.split`: not a loop's

    def leave_Arg(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg:
        return updated_node.with_changes(keyword=original_node.keyword)


#: The most strings a path is spelled out to (a loop over a long list is a wildcard).
_MOST = 64


def string_constants(
    module: cst.Module, bound_in_functions: Callable[[str], bool]
) -> dict[str, tuple[str, ...]]:
    """The module's top-level names bound once to a string, or to a list or tuple of them
    (`SPLITS = ["train", "val"]`), and nowhere else: what concrete_paths spells them as."""
    seen: dict[str, int] = {}
    found: dict[str, tuple[str, ...]] = {}
    for statement in module.body:
        for node in walk(statement, skip_scopes=True):
            if not isinstance(node, (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.For)):
                continue
            targets = (
                [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            )
            for target in targets:
                for name in (n.value for n in walk(target) if isinstance(n, cst.Name)):
                    seen[name] = seen.get(name, 0) + 1
            if isinstance(node, cst.Assign) and len(targets) == 1:
                target = targets[0]
                strings = _strings(node.value)
                if isinstance(target, cst.Name) and strings is not None:
                    found[target.value] = strings
    return {
        name: strings
        for name, strings in found.items()
        if seen.get(name) == 1 and not bound_in_functions(name)
    }


def _strings(node: cst.BaseExpression) -> tuple[str, ...] | None:
    if isinstance(node, cst.SimpleString) and isinstance(node.evaluated_value, str):
        return (node.evaluated_value,)
    if isinstance(node, (cst.List, cst.Tuple)):
        items = [
            e.value.evaluated_value
            for e in node.elements
            if isinstance(e, cst.Element)
            and isinstance(e.value, cst.SimpleString)
            and isinstance(e.value.evaluated_value, str)
        ]
        return tuple(items) if len(items) == len(node.elements) else None
    return None


def concrete_paths(
    text: str, site: cst.CSTNode, view: NodeView, constants: dict[str, tuple[str, ...]]
) -> tuple[str, ...] | None:
    """The paths a path's text (as path_texts.py gives it for `site`) spells out: string
    literals, f-strings, `+` and os.path.join over them, the module's string constants, and
    names a loop around `site` binds: each string of a literal list it iterates, or `*` (a
    glob wildcard) for any other iterable. None where any other value takes part."""
    path = _parsed(text)
    if path is None:
        return None
    loops = _loops(site, view)
    spelled = _spell(path, loops, constants)
    return None if spelled is None else tuple(dict.fromkeys(spelled))


def _spell(
    node: cst.BaseExpression,
    loops: dict[str, tuple[cst.BaseExpression, str]],
    constants: dict[str, tuple[str, ...]],
) -> list[str] | None:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return [value] if isinstance(value, str) else None
    if isinstance(node, cst.Name):
        if node.value in loops:
            iterable, where = loops[node.value]
            strings = None if where else _iterated(iterable, constants)
            return ["*"] if strings is None else list(strings)
        strings = constants.get(node.value)
        return list(strings) if strings is not None and len(strings) == 1 else None
    parts: list[list[str] | None] = []
    joiner = ""
    if isinstance(node, cst.FormattedString):
        for part in node.parts:
            if isinstance(part, cst.FormattedStringText):
                parts.append([part.value])
            elif (
                isinstance(part, cst.FormattedStringExpression)
                and part.format_spec is None
                and part.conversion is None
            ):
                parts.append(_spell(part.expression, loops, constants))
            else:
                return None
    elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        parts = [_spell(node.left, loops, constants), _spell(node.right, loops, constants)]
    elif isinstance(node, cst.ConcatenatedString):
        parts = [_spell(node.left, loops, constants), _spell(node.right, loops, constants)]
    elif (
        isinstance(node, cst.Call)
        and cst.Module([]).code_for_node(node.func) == "os.path.join"
        and node.args
        and all(a.keyword is None and not a.star for a in node.args)
    ):
        parts, joiner = [_spell(a.value, loops, constants) for a in node.args], "/"
    else:
        return None
    spelled = [""]
    for index, options in enumerate(parts):
        if options is None or len(spelled) * len(options) > _MOST:
            return None
        glue = joiner if index else ""
        spelled = [f"{head}{glue}{option}" for head in spelled for option in options]
    return spelled


def _iterated(
    iterable: cst.BaseExpression, constants: dict[str, tuple[str, ...]]
) -> tuple[str, ...] | None:
    if isinstance(iterable, cst.Name):
        return constants.get(iterable.value)
    return _strings(iterable)


def spelled_same(written: tuple[str, ...], read: tuple[str, ...]) -> str:
    """ "same" when a spelled-out path is both written and read; "maybe" when a loop's
    wildcard on one side only may stand for the other (`out/*.npy` written, `out/train.npy`
    read), a wildcard standing for one whole name between `/` and `.` and the pattern
    naming more than the wildcard; "" otherwise."""
    if set(written) & {p for p in read if "*" not in p}:
        return "same"
    for w in written:
        for r in read:
            pattern, path = (w, r) if "*" in w else (r, w)
            if "*" in path or "*" not in pattern or not pattern.strip("*/."):
                continue
            if _wildcard(pattern).fullmatch(path):
                return "maybe"
    return ""


def spelled_apart(written: tuple[str, ...] | None, read: tuple[str, ...] | None) -> bool:
    """Both paths spell out without a wildcard, and share no spelling: never one file."""
    if not written or not read or any("*" in p for p in (*written, *read)):
        return False
    return not set(written) & set(read)


@functools.lru_cache(maxsize=1024)
def _wildcard(pattern: str) -> re.Pattern[str]:
    return re.compile("[^/.]+".join(re.escape(piece) for piece in pattern.split("*")))


def listed_directory(
    call: cst.Call, names: set[str], code: Callable[[cst.CSTNode], str]
) -> tuple[str, str] | None:
    """(the text of the directory `call` lists, the extension its pattern asks for or "");
    None when `call` lists no directory."""
    if any(a.star for a in call.args):
        return None
    func = call.func
    if names & LISTINGS:
        if not call.args or call.args[0].keyword is not None:
            return None
        return _directory(call.args[0].value, code)
    # a local's or a module variable's own name (`cache.iterdir` of `cache = Path(d)`)
    # names no library: what the object is, the method says
    library = {n for n in names if "<locals>" not in n and n != code(func)}
    if library or not isinstance(func, cst.Attribute) or func.attr.value not in PATH_LISTINGS:
        return None
    owner = func.value
    if isinstance(owner, cst.Call) and code(owner.func) in ("Path", "pathlib.Path"):
        if len(owner.args) != 1 or owner.args[0].keyword is not None or owner.args[0].star:
            return None
        owner = owner.args[0].value
    pattern = call.args[0].value if call.args else None
    suffix = ""
    if isinstance(pattern, cst.SimpleString) and isinstance(pattern.evaluated_value, str):
        suffix = _pattern_suffix(pattern.evaluated_value)
    return code(owner), suffix


def _directory(
    pattern: cst.BaseExpression, code: Callable[[cst.CSTNode], str]
) -> tuple[str, str] | None:
    """The directory of a glob pattern or a listed path: `d` of `os.path.join(d, "*.npy")`,
    `d + "/*.npy"`, `f"{d}/*.npy"`, or the path itself; and the extension asked for."""
    if isinstance(pattern, cst.Call) and code(pattern.func) == "os.path.join":
        args = [a for a in pattern.args if a.keyword is None and not a.star]
        if len(args) >= 2 and isinstance(args[-1].value, cst.SimpleString):
            last = args[-1].value.evaluated_value
            if isinstance(last, str) and "*" in last:
                return code(args[0].value), _pattern_suffix(last)
        return code(pattern), ""
    if isinstance(pattern, cst.BinaryOperation) and isinstance(pattern.operator, cst.Add):
        right = pattern.right
        if isinstance(right, cst.SimpleString) and isinstance(right.evaluated_value, str):
            if right.evaluated_value.startswith("/") and "*" in right.evaluated_value:
                return code(pattern.left), _pattern_suffix(right.evaluated_value)
    if isinstance(pattern, cst.FormattedString) and len(pattern.parts) == 2:
        head, tail = pattern.parts
        if isinstance(head, cst.FormattedStringExpression) and isinstance(
            tail, cst.FormattedStringText
        ):
            if tail.value.startswith("/") and "*" in tail.value:
                return code(head.expression), _pattern_suffix(tail.value)
    if isinstance(pattern, cst.SimpleString) and isinstance(pattern.evaluated_value, str):
        text = pattern.evaluated_value
        if "*" in text:
            folder = text.split("*", 1)[0].rstrip("/")  # as a double-quoted literal's text
            return json.dumps(folder) if folder else '"."', _pattern_suffix(text)
    return code(pattern), ""


def _pattern_suffix(pattern: str) -> str:
    match = re.search(r"\*\.([A-Za-z0-9_]{1,10})$", pattern)
    return match.group(1) if match else ""


def names_within(text: str, root: str) -> bool:
    """A path written `text` names `root` or something in it, as programs spell a file in
    a directory: `os.path.join(root, ...)`, `root / ...`, `Path(root) / ...`, an f-string
    starting with it, `root + "/..."`."""
    return text == root or text.startswith(
        (
            f"os.path.join({root},",
            f"{root} /",
            f"Path({root}) /",
            f'f"{{{root}}}/',
            f"f'{{{root}}}/",
            f'{root} + "/',
            f"{root} + '/",
        )
    )


def suffix(text: str) -> str:
    """The extension a path's text ends with, or ""."""
    match = _SUFFIX.search(text)
    return match.group(1) if match else ""


def apart(first: str, second: str) -> bool:
    """Two paths' texts end with other extensions: never one file."""
    a, b = suffix(first), suffix(second)
    return bool(a and b and a != b)


def may_name_same(write: str, read: str) -> bool:
    """The paths written `write` and `read` (texts that differ) may name one file, and no
    text shows it (see the module's docstring): loops over other iterables, the same helper
    called with other arguments, the same attribute or item of another object."""
    if write == read or apart(write, read):
        return False
    if LOOP_NAME in write or LOOP_NAME in read:
        return wildcard(write) == wildcard(read)
    left, right = _parsed(write), _parsed(read)
    return left is not None and right is not None and _same_shape(left, right)


@functools.lru_cache(maxsize=4096)
def _parsed(text: str) -> cst.BaseExpression | None:
    """A path's text parsed back (once: a module's reads meet each of its writes)."""
    try:
        return cst.parse_expression(text)
    except cst.ParserSyntaxError:
        return None


def _same_shape(left: cst.BaseExpression, right: cst.BaseExpression) -> bool:
    code = cst.Module([]).code_for_node
    if isinstance(left, cst.Call) and isinstance(right, cst.Call):
        if code(left.func) != code(right.func) or len(left.args) != len(right.args):
            return False
        differ = [
            (a.value, b.value)
            for a, b in zip(left.args, right.args, strict=True)
            if code(a.value) != code(b.value)
        ]
        return not any(_literal(a) and _literal(b) for a, b in differ)
    if isinstance(left, cst.Attribute) and isinstance(right, cst.Attribute):
        return left.attr.value == right.attr.value
    if isinstance(left, cst.Subscript) and isinstance(right, cst.Subscript):
        keys = [code(s.slice[0]) for s in (left, right) if len(s.slice) == 1]
        return len(keys) == 2 and keys[0] == keys[1] and _literal_key(left)
    return False


def _literal(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.SimpleString, cst.Integer, cst.Float, cst.ConcatenatedString))


def _literal_key(subscript: cst.Subscript) -> bool:
    index = subscript.slice[0].slice
    return isinstance(index, cst.Index) and _literal(index.value)
