"""What an exists-check decides, found by the paths it checks (issue 29; run_dir.py).

An `if` whose test reads the file system's state (`os.path.exists(p)`, `p.is_dir()`) is
rank 0's reading where the branch taken changes what the ranks share: a directory made
after it, a file written after it, or a folder its branch makes and fills. These functions
find that sink by the paths the test checks, each by its text or its form (path_forms.py:
`os.path.exists(cache)` of `cache = os.path.join(root, "cache")` checks the folder
`os.makedirs(f"{root}/cache")` makes).

Why a module of its own, not the agreement rule's value flow (analysis/per_process.py,
which follows what a shared path is computed from): here the read decides which branch
runs, and what the ranks share is an effect of that branch, found by what it does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import view
from dp2ddp.transforms._support.nodes import inside, walk
from dp2ddp.transforms.rank_zero.file_paths import whole_file_path
from dp2ddp.transforms.rank_zero.file_writes import path_open_for_writing
from dp2ddp.transforms.rank_zero.mkdir import made_directory
from dp2ddp.transforms.rank_zero.path_forms import path_form
from dp2ddp.transforms.rank_zero.side_effects import REMOVALS

if TYPE_CHECKING:
    from dp2ddp.transforms.rank_zero import RankZeroOnly


def written_after(t: RankZeroOnly, statement: cst.If) -> cst.Call | None:
    """A cache check (`if os.path.isfile(path): return`, then the file written): the
    first call after `statement` in its block that writes the path its test checks (by
    text; rank 0 alone writes it, side_effects.py), else None. A rank that read the file
    rank 0 had just written returned, and never reached the barrier after the write
    (jaywonchung/BERT4Rec-VAE-Pytorch@f66f253: 3 of 10 launches hung): rank 0's
    reading takes every rank the same way, to the barrier or past it. A restart test
    (`if os.path.exists(p["checkpoint"]):`, the checkpoint the loop after it saves) the
    same: each rank's own reading proves neither branch every rank's, so no barrier could
    go between a rank-0 write in it and every rank's read of the file after
    (SimonVandenhende/Multi-Task-Learning-PyTorch@ed3d9ac: DP054, and rank 1
    FileNotFoundError on the predictions); rank 0's reading proves both (uniformity.py).
    Not where the `if` only removes (_removes_only)."""
    parent = t.parent(statement)
    if not isinstance(parent, cst.IndentedBlock) or _removes_only(t, statement):
        return None
    body = list(parent.body)
    checked = checked_paths(t, statement)
    jumps = _jumps(statement)  # a folder made after it decides where the ranks go too
    for later in body[next(i for i, s in enumerate(body) if s is statement) + 1 :]:
        for call in walk(later, skip_scopes=True):
            if not isinstance(call, cst.Call):
                continue
            names = t.qualified_names(call.func)
            written = whole_file_path(call, names, write=True)
            if written is None and path_open_for_writing(call):
                written = call.func.value  # type: ignore[attr-defined]  # `path.open("wb")`
            if written is None and jumps:
                written = made_directory(call, names)
            if written is not None and spelled(t, written) & checked:
                return call
    return None


def _jumps(statement: cst.If) -> bool:
    """A branch of `statement` leaves its block (`continue`, `break`, `return`; a `break`
    or `continue` of a loop nested in it does not, nor anything in a nested def):
    `if os.path.exists(run_dir): continue`, then `os.makedirs(run_dir)` (round 39,
    timoschick/pet@21d32de: the rank that came second saw the folder the first had made
    and skipped that run, a hang)."""
    stack: list[cst.CSTNode] = [statement]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Return, cst.Break, cst.Continue)):
            return True
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            continue
        if isinstance(node, (cst.For, cst.While)):
            stack += [n for n in walk(node, skip_scopes=True) if isinstance(n, cst.Return)]
            continue
        stack.extend(node.children)
    return False


def _removes_only(t: RankZeroOnly, statement: cst.If) -> bool:
    """Each line of `statement`'s branches is one removal (`if os.path.exists(csv):
    os.remove(csv)`): rank 0 removes and every rank waits for it (run_dir.py), so the
    branch each rank takes decides nothing the ranks share."""
    branches = [statement.body] + ([statement.orelse.body] if statement.orelse else [])
    lines = [s for b in branches for s in (b.body if isinstance(b, cst.IndentedBlock) else [b])]
    return all(
        isinstance(line, cst.SimpleStatementLine)
        and all(
            isinstance(part, cst.Expr)
            and isinstance(part.value, cst.Call)
            and bool(t.qualified_names(part.value.func) & REMOVALS)
            for part in line.body
        )
        for line in lines
    )


def checked_paths(t: RankZeroOnly, statement: cst.If) -> set[str]:
    """The paths `statement`'s test checks (`os.path.isdir(p)`, `p.exists()`), spelled."""
    checked: set[str] = set()
    for call in walk(statement.test):
        if isinstance(call, cst.Call):
            for arg in call.args[:1]:
                checked |= spelled(t, arg.value)
            if isinstance(call.func, cst.Attribute):
                checked |= spelled(t, call.func.value)
    return checked


def spelled(t: RankZeroOnly, path: cst.BaseExpression) -> set[str]:
    """A path's text and its form (path_forms.py), by which two spellings of it meet."""
    form = path_form(path, t, bare=True)
    return {t.code(path)} if form is None else {t.code(path), form}


def made_in(t: RankZeroOnly, statement: cst.If) -> tuple[cst.Call | None, cst.Call | None]:
    """(the first call in a branch of `statement` that makes a directory its test checks
    where that branch also does something else; the first write after such a make), each
    None where there is none.

    `if not os.path.exists(d): print(...); os.makedirs(d)`: a branch that only makes the
    folder does the same on every rank, whichever branch a rank took (the make is
    idempotent, mkdir.py); one that does more did it on the ranks that came first
    (kaidic/LDAM-DRW@2536330: rank 0's "creating folder" line lost). A cache made once
    (`if not os.path.exists(cache): os.makedirs(cache)`, then files written into it, which
    rank 0 alone does): rank 1 made the folder before rank 0 read the test, so rank 0
    skipped its writes and every rank listed an empty folder (paper99/srfbn_cvpr19@046f693's
    get_image_paths shape): rank 0's reading takes every rank into the branch (the barrier
    after it, barriers.py, then waits for the writes)."""
    checked = checked_paths(t, statement)
    branches: list[cst.BaseSuite] = [statement.body]
    if isinstance(statement.orelse, cst.Else):
        branches.append(statement.orelse.body)
    found: cst.Call | None = None
    written: cst.Call | None = None
    for branch in branches:
        made: cst.Call | None = None
        other = made_before = False
        for line in branch.body if isinstance(branch, cst.IndentedBlock) else [branch]:
            makes: list[cst.Call] = []
            for call in walk(line, skip_scopes=True):
                if not isinstance(call, cst.Call):
                    continue
                names = t.qualified_names(call.func)
                directory = made_directory(call, names)
                if directory is not None and spelled(t, directory) & checked:
                    makes.append(call)
                    made_before = True
                elif made_before and written is None and _writes(call, names):
                    written = call
            if makes and isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1:
                made = made or makes[0]
            else:
                other = True
        if made is not None and other and found is None:
            found = made
    return found, written


def _writes(call: cst.Call, names: set[str]) -> bool:
    return whole_file_path(call, names, write=True) is not None or path_open_for_writing(call)


def written_in(t: RankZeroOnly, statement: cst.If) -> cst.Call | None:
    """A cache built when absent (`if os.path.exists(cache): corpus = torch.load(cache)`
    `else: corpus = build(); torch.save(corpus, cache)`): the first call in a branch of
    `statement` that writes a path its test checks (rank 0 alone writes it,
    side_effects.py), else None. Each rank read the file system apart: on a first run rank
    1 saw the file rank 0 was still writing (a torn read) or not yet (and built its own).
    Rank 0's reading takes every rank the same way: all load a file written before the
    test, or all build alike (the build's draws are shared, ddp_same_random) and wait at
    the barrier after the `if` while rank 0 writes (barriers.py). A call of a function of
    the module handed the checked path as a parameter its body writes whole (`else: corpus
    = build_and_save(cache)`, `torch.save(corpus, path)` inside) is that write too
    (`_writes_handed`)."""
    checked = checked_paths(t, statement)
    branches: list[cst.CSTNode] = [statement.body]
    if statement.orelse is not None:
        branches.append(statement.orelse)
    for branch in branches:
        for call in walk(branch, skip_scopes=True):
            if isinstance(call, cst.Call) and _writes(call, t.qualified_names(call.func)):
                written = whole_file_path(call, t.qualified_names(call.func), write=True)
                if written is None:
                    written = call.func.value  # type: ignore[attr-defined]  # `path.open("wb")`
                if spelled(t, written) & checked:
                    return call
            elif isinstance(call, cst.Call) and _writes_handed(t, call, checked):
                return call
    return None


def _writes_handed(t: RankZeroOnly, call: cst.Call, checked: set[str]) -> bool:
    """`call` runs a plain function of the module (the def-use view's callees) handed a
    path `checked` holds, as a parameter its body writes whole and never rebinds
    (`def build_and_save(path): ...; torch.save(corpus, path)`): the write is the call's."""
    if not checked or not isinstance(call.func, cst.Name):
        return False
    flow = view(t.facts.module)
    for function in flow.callees(call):
        if function.owner is not None or not isinstance(function.node, cst.FunctionDef):
            continue
        handed: set[str] = set()
        for index, arg in enumerate(call.args):
            if arg.star or not spelled(t, arg.value) & checked:
                continue
            if arg.keyword is not None:
                handed.add(arg.keyword.value)
            elif index < len(function.params):
                handed.add(function.params[index].name.value)
        if not handed:
            continue
        for inner in walk(function.node.body, skip_scopes=True):
            if not isinstance(inner, cst.Call) or not _writes(inner, t.qualified_names(inner.func)):
                continue
            written = whole_file_path(inner, t.qualified_names(inner.func), write=True)
            if (
                isinstance(written, cst.Name)
                and written.value in handed
                and all(d.kind == "param" for d in flow.definitions(written))
            ):
                return True
    return False


def apart(t: RankZeroOnly, load: cst.CSTNode, save: cst.CSTNode, statement: cst.CSTNode) -> bool:
    """`load` and `save` lie in the two branches of the `if` `statement` (the barrier after
    it: barriers.py): where every rank takes the same branch (its test rank 0's reading,
    written_in), no rank loads while rank 0 writes in this pass of it."""
    if not isinstance(statement, cst.If) or statement.orelse is None:
        return False
    sides: list[tuple[cst.CSTNode, cst.CSTNode]] = [(statement.body, statement.orelse)]
    sides.append((statement.orelse, statement.body))
    if t.facts.uniform.rank_dependent_around(load) is not None:
        return False  # a test each rank reads apart: a rank may load while rank 0 writes
    return any(inside(load, a, t) and inside(save, b, t) for a, b in sides)
