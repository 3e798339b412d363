"""Paths the barrier planning cannot match by their text (barriers.py), matched by their
shape, or judged as maybe naming the same file (issue 29).

path_texts.py matches a rank-0 write and every rank's later read of one file by the path's
text. Three spellings name one file in a way the text does not show:

- a path built from a loop variable: `for split in splits: np.save(f"{split}.npy", ...)`, read
  back by `for name in splits: np.load(f"{name}.npy")`. Each name a `for` (or a
  comprehension) around the call binds is replaced by what it iterates (`loop_pattern`): the
  two paths then read alike, and the write gets its barrier;
- a path spelled out (concrete_paths, over path_forms.py's reading of what the path is
  built of: literals, f-strings, `+`, os.path.join, pathlib, strings bound once): a loop
  over a list of strings writes each of them (`for split in SPLITS:
  np.save(f"{split}.npy", ...)` writes `train.npy`, which
  `np.load("train.npy")` reads); a loop over anything else writes a wildcard (`*.npy`) a
  read may match (DP066), and two spelled-out paths that differ are never one file;
- a listing of the directory the write goes into (`glob.glob(os.path.join(OUT, "*.npy"))`,
  `os.listdir(OUT)`, `Path(OUT).glob("*.npy")`, `.iterdir()`): a rank that lists before
  rank 0 has written sees a part of the files, or none. Which folder a listing lists, and
  whether a path is in it, is path_forms.py's reading (`listing`, `form_within`): one
  reading of what a path is built of, for every spelling;
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
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.nodes import NodeView, walk
from dp2ddp.transforms.rank_zero.path_forms import iterated_strings, pieces

if TYPE_CHECKING:
    from dp2ddp.transforms.rank_zero import RankZeroOnly

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


#: The last `{name}` of a path's f-string and the literal text after it to the end.
_LAST_FIELD = re.compile(r"\{(\w+)\}([^{}\"']*)[\"']\)*$")


def family(texts: tuple[str, ...], site: cst.CSTNode, view: NodeView) -> str | None:
    """The key of a family of files a path belongs to, where its text (any of `texts`)
    ends with `{name}<tail>`, `name` taking many values where the path is used (bound by a
    loop around `site`, or a parameter of its function: a worker a pool maps over names,
    `pool.map(partial(load_speaker, path=root), speakers)`), and `tail` holds the file's
    extension (`{chapter}.trans.txt`). A loop writing such files on rank 0 and a read of
    the same family elsewhere meet at this key (stop 62 v2-G, vshmyhlo/listen-attend-and-
    speell-pytorch@864584e: the transcripts written by `make_data` and read by the pool's
    workers got no barrier, their paths spelled apart). None otherwise."""
    loops: set[str] | None = None
    for text in texts:
        found = _LAST_FIELD.search(text)
        if found is None or "." not in found.group(2):
            continue
        if loops is None:
            loops = set(_loops(site, view)) | _parameters(site, view)
        if found.group(1) in loops:
            return f"{LOOP_NAME}family__{found.group(2)}"
    return None


def _parameters(site: cst.CSTNode, view: NodeView) -> set[str]:
    """The parameter names of the function `site` is in."""
    node: cst.CSTNode | None = site
    while node is not None and not isinstance(node, cst.FunctionDef):
        node = view.parent(node)
    if node is None:
        return set()
    params = node.params
    every = (*params.posonly_params, *params.params, *params.kwonly_params)
    return {p.name.value for p in every}


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


def concrete_paths(
    path: cst.BaseExpression | str | None, site: cst.CSTNode, t: RankZeroOnly
) -> tuple[str, ...] | None:
    """The paths `path` (at `site`) spells out. What it is built of is path_forms.py's
    reading (`pieces`: literals, the module's and a function's strings bound once,
    os.path.join, pathlib, `+`, f-strings); each name a loop around `site` binds stands for
    each string of a literal list it iterates (or a name bound once to one), or for `*` (a
    glob wildcard) for any other iterable. None where any other value takes part, or no
    path is given; a string is another module's fixed path (ProgramHints), itself."""
    if path is None or isinstance(path, str):
        return None if path is None else (path,)
    parts = pieces(path, t)
    if parts is None:
        return None
    loops = _loops(site, t)
    spelled = [""]
    for literal, part in parts:
        options: tuple[str, ...] | None = (part,) if literal else None
        if not literal and part in loops:
            iterable, where = loops[part]
            options = (None if where else iterated_strings(iterable, t)) or ("*",)
        if options is None or len(spelled) * len(options) > _MOST:
            return None
        spelled = [f"{head}{option}" for head in spelled for option in options]
    return tuple(dict.fromkeys(spelled))


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
