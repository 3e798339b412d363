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
import sys
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import origins, view
from dp2ddp.transforms._support.nodes import module_of, name_of, walk
from dp2ddp.transforms.rank_zero.side_effects import FILE_WRITES

if TYPE_CHECKING:
    from dp2ddp.transforms.rank_zero import RankZeroOnly

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


#: The last name of a library function that may write what it is handed: `save_model`,
#: `save_checkpoint`, `dump_state`, `write_weights` (ticpfptp's `save_model(model, path)`
#: ran on every rank: two writers of one checkpoint, stop 62 v2-F).
_SAVER_NAME = re.compile(r"(save|dump|write)(_|$)|(save|dump|write)[A-Z]")
#: Libraries whose functions named so are no checkpoint writers of a model's: the standard
#: library's (side_effects' tables hold its writers), torch's, which the tables name, and
#: the experiment trackers, which other rules put on rank 0.
_NOT_SAVERS = frozenset({"torch", "wandb", "mlflow", "neptune", "comet_ml", "tensorboardX"})


def library_saver(t: RankZeroOnly, call: cst.Call, names: set[str]) -> str | None:
    """The qualified name of a library function, none of side_effects' tables (its caller
    asks those first), named as a writer (`save*`, `dump*`, `write*`) and handed the
    wrapped model, its `.module` or a `state_dict()` (directly or through the names they
    are bound to): a checkpoint writer by every sign dp2ddp can read (stop 63 s2). None
    for any other call, and for a function of the program's own modules (their own
    writes are guarded where they are)."""
    found = [n for n in names if "." in n and not n.startswith(".") and "<locals>" not in n]
    if not found or len(found) != len(names):
        return None
    name = found[0]
    top = name.partition(".")[0]
    if top in _NOT_SAVERS or top in sys.stdlib_module_names:
        return None
    if not _SAVER_NAME.match(name.rsplit(".", 1)[-1]):
        return None
    program = t.facts.uniform.program_uniform()
    if program is not None and any(
        program[0].defines_function(*n.rpartition(".")[::2]) for n in found
    ):
        return None
    if not any(_model_value(t, arg.value) for arg in call.args):
        return None
    return name


def _model_value(t: RankZeroOnly, value: cst.BaseExpression) -> bool:
    """`value` holds the wrapped model (a name the wrap binds, or its `.module`) or a
    `state_dict()`, as written or through the bindings flow/ follows to it."""
    module = module_of(value, t)
    nodes: list[cst.CSTNode] = [value]
    if isinstance(module, cst.Module) and isinstance(value, (cst.Name, cst.Attribute)):
        for origin in origins(view(module), value):
            nodes += [step.node for step in origin.path]
            nodes.append(origin.node)
    wrapped = set(t.state.wrapped)
    for node in nodes:
        called: set[int] = set()  # `model(x)`, `model.parameters()`: not the model handed
        for inner in walk(node) if isinstance(node, cst.BaseExpression) else ():
            if id(inner) in called:
                continue
            if isinstance(inner, cst.Call):
                func = inner.func
                if isinstance(func, cst.Attribute) and func.attr.value == "state_dict":
                    return True
                called |= {id(n) for n in walk(func)}
            elif isinstance(inner, (cst.Name, cst.Attribute)) and t.code(inner) in wrapped:
                return True
    return False


def saves_elsewhere(t: RankZeroOnly, call: cst.Call, names: set[str]) -> None:
    """DP154 for a library_saver call that is no statement of its own (`path =
    save_checkpoint(model, ...)`, an argument, a condition): its value is used, so the
    call cannot go to rank 0 the way a statement does (rank_zero/guard_statements.py), and
    every rank writes the file. Said, not guarded. A call already under a rank-0 guard, or
    of a table's writer, is no business of this rule."""
    parent = t.parent(call)
    if isinstance(parent, cst.Expr) and isinstance(t.parent(parent), cst.SimpleStatementLine):
        return  # a statement: kind() puts it on rank 0
    if names & FILE_WRITES:
        return
    saver = library_saver(t, call, names)
    if saver is None or t.facts.under_guard(call) or t.facts.before_setup(call):
        return
    t.warn(
        call,
        "DP154",
        f"{t.code(call.func)}() ({saver}) is handed the model or its state_dict and is "
        "named as a writer; its value is used, so the call was not put on rank 0: every "
        "rank may write the same file",
    )
