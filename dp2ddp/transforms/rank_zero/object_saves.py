"""`x.save(path)` of an object no rule proves the type of (DP078).

A PIL image a program helper returns is followed through the helper's returns
(analysis/object_returns.py) and its `.save(path)` goes to rank 0 (facts.py). Where the
object comes from a function whose returns are not proved (a helper returning one of two
kinds, a library function dp2ddp does not know) and the call hands `.save` a path, it may
write that file on every rank: said, not guarded, since what the method does is not known
(knazeri/edge-connect@3142579's sample grids were written by both ranks unsaid, stop 31 W3).
The same for an object a library's class built where dp2ddp does not know the library
(`img = torchio.ScalarImage(tensor=x)`; `img.save(path)`: MontaEllis/Pytorch-Medical-
Segmentation@fc3193f's sample volumes were written by both ranks into one file unsaid,
stop 50 v4-A): the class is no more proved than a function's return is.
"""

from __future__ import annotations

import re

import libcst as cst

from dp2ddp.transforms._support.nodes import name_of

#: Names that hold a path (`sample_path`, `fname`, `out_file`, `save_dir`).
_PATH_NAME = re.compile(r"path|file|fname|name|dir|dst|dest|out", re.I)
#: Keywords by which a save method takes its path.
_PATH_KEYWORDS = frozenset({"fp", "path", "filename", "file", "fname", "filepath"})


def path_like(node: cst.BaseExpression) -> bool:
    """A file path as programs spell one: a string, an f-string, `os.path.join(...)`, a
    `%`/`.format` string, a Path's `/`, or a name saying it holds one (`name`,
    `sample_path`)."""
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
        return True
    if isinstance(node, cst.BinaryOperation):
        if isinstance(node.operator, cst.Modulo):
            return path_like(node.left)
        return isinstance(node.operator, cst.Divide) and path_like(node.left)
    if isinstance(node, cst.Call):
        return name_of(node.func) in ("join", "format", "Path", "joinpath", "with_suffix")
    if isinstance(node, (cst.Name, cst.Attribute)):
        return bool(_PATH_NAME.search(name_of(node)))
    return False


def saved_path(call: cst.Call) -> cst.BaseExpression | None:
    """The path `call` (a `.save(...)`) is given, when it reads as one."""
    for arg in call.args:
        if (
            arg.keyword is None
            and arg.star == ""
            or (arg.keyword is not None and arg.keyword.value in _PATH_KEYWORDS)
        ):
            return arg.value if path_like(arg.value) else None
    return None


def returned_by(classes: frozenset[str] | None, known: frozenset[str]) -> str | None:
    """The function (not a class: its own `save` is the program's, or a known library's)
    whose return the receiver is, when no rule knows it: its qualified names `classes`
    (rank_zero/facts.py's instances), none of a `known` package."""
    if not classes or len(classes) != 1:
        return None
    (name,) = classes
    last = name.rsplit(".", 1)[-1]
    if not last or not last[0].islower() or name.split(".")[0] in known:
        return None
    return name


def library_class(classes: frozenset[str] | None, known: frozenset[str]) -> str | None:
    """The class of a library whose object the receiver is (`torchio.ScalarImage`), when
    no rule knows it: one qualified name `classes` (rank_zero/facts.py's instances, or a
    call's own), imported (a dotted name, not a relative import's: those are the
    program's), a class by its spelling, of none of the `known` packages."""
    if not classes or len(classes) != 1:
        return None
    (name,) = classes
    last = name.rsplit(".", 1)[-1]
    if name.startswith(".") or "." not in name or name.split(".")[0] in known:
        return None
    return name if last[:1].isupper() else None
